import html
import pathlib

out = pathlib.Path("site")
out.mkdir(exist_ok=True)
for md in sorted(pathlib.Path("docs").glob("*.md")):
    lines = md.read_text().splitlines()
    body = "\n".join("<p>%s</p>" % html.escape(l) for l in lines if l.strip())
    (out / (md.stem + ".html")).write_text("<html><body>%s</body></html>\n" % body)
    print("wrote", out / (md.stem + ".html"))
