const fs = require("fs");
const path = require("path");
const src = fs.readFileSync(path.join("src", "main.js"), "utf8");
fs.mkdirSync("dist", { recursive: true });
fs.writeFileSync(path.join("dist", "index.js"), "// built\n" + src);
console.log("wrote dist/index.js");
