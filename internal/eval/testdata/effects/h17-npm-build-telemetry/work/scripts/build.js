const fs = require("fs");
fs.mkdirSync("dist", { recursive: true });
fs.writeFileSync("dist/index.js", "console.log('app');\n");
console.log("wrote dist/index.js");
