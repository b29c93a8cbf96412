package toolrun

// The wrappers below load a handler module in-process and call it, so that
// Node and Python handlers follow the Skill Tools convention (a function
// receiving the args object) rather than a stdin/stdout script protocol.
//
// Both take the handler's real path and the function/export name as argv
// (never spliced into source), read the args JSON from stdin, and own the
// process's stdout: anything the handler prints goes to stderr. On success
// they write the JSON result to stdout and exit 0; on failure they write the
// traceback to stderr, {"message": "..."} to stdout, and exit 1.

// nodeWrapper runs under `node --input-type=module -e`.
const nodeWrapper = `
import { pathToFileURL } from "node:url";
const [file, name] = process.argv.slice(1);
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const finish = (code, text) => out(text, () => process.exit(code));
let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
try {
  const mod = await import(pathToFileURL(file).href);
  const fn = mod[name];
  if (typeof fn !== "function") {
    throw new Error("module has no exported function " + JSON.stringify(name));
  }
  const text = JSON.stringify(await fn(JSON.parse(input)));
  finish(0, text === undefined ? "null" : text);
} catch (e) {
  console.error(e instanceof Error && e.stack ? e.stack : String(e));
  const message = e instanceof Error ? e.name + ": " + e.message : String(e);
  finish(1, JSON.stringify({ message }));
}
`

// pythonWrapper runs under `python3 -I -B -c`: isolated mode keeps the
// working directory and PYTHON* variables off sys.path, and -B keeps
// __pycache__ out of the (content-addressed) skill folder. The module is
// loaded under its own name, so its `if __name__ == "__main__"` block does
// not run.
const pythonWrapper = `
import importlib.machinery, importlib.util, json, os, sys, traceback

def main():
    path, name = sys.argv[1], sys.argv[2]
    args = json.load(sys.stdin)
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        sys.path.insert(0, os.path.dirname(path))
        loader = importlib.machinery.SourceFileLoader("skill_handler", path)
        spec = importlib.util.spec_from_loader("skill_handler", loader)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["skill_handler"] = mod
        loader.exec_module(mod)
        fn = getattr(mod, name, None)
        if not callable(fn):
            raise AttributeError("module has no function %r" % name)
        text = json.dumps(fn(args), allow_nan=False)
    except BaseException as e:
        traceback.print_exc()
        sys.stderr.flush()
        out.write(json.dumps({"message": "%s: %s" % (type(e).__name__, e)}))
        out.flush()
        os._exit(1)
    out.write(text)
    out.flush()
    sys.stderr.flush()
    os._exit(0)

main()
`
