--- etinspect.scripts: the bundled report scripts, by name.  Each script
-- module has description, usage, args ({ {"ARG", "meaning"}, ... }) and
-- run(args).  `etinspect NAME ARGS...` runs one, `etinspect --list-scripts`
-- lists them and `etinspect --help NAME` shows one's help.
return { names = { "top_ops", "framework_tax", "delegation", "modules", "diff" } }
