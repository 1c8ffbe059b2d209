# shell history (fixture)
ls
cd project
