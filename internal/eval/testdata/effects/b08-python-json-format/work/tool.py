import json
import pathlib

for p in sorted(pathlib.Path("data").glob("*.json")):
    doc = json.loads(p.read_text())
    with open(p, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    print("formatted", p)
