package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

func RunCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a tool that an installed skill declares",
		UsageText: `skillpm run [options] TOOL [KEY=VALUE...]

Validates the input against the tool's JSON Schema, adds __workDir, runs the
handler (a Node ESM default export, a Python handler(args), or a bash script
or other executable reading JSON on stdin and writing JSON on stdout) and
prints its JSON result on stdout.

The input is the JSON object of --input (JSON text, @FILE, or - for stdin),
with each KEY=VALUE argument setting one field on top. VALUE is read as JSON
when it parses as JSON (42, 1.5, true, null, [1,2], {"a":1}, "quoted"), and as
a plain string otherwise: n=3 is a number, name=Ada a string, id='"007"' the
string "007". Use --input for anything else.

A tool that fails, times out or is not allowed prints the error envelope
({"status":"error","error":{"code",...}}) on stdout and exits with code 12.

Examples:
  skillpm run count_words text="the quick brown fox"
  skillpm run extract-text --input '{"path":"report.pdf"}'
  echo '{"a":2,"b":3}' | skillpm run add --input -
  skillpm run resize --input @args.json width=640
  skillpm run build-report --max-output 65536 --exclude 'legacy-*'`,
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "tool input `JSON`: an object, @FILE to read it from a file, or - for stdin"},
		}, append(RunFlags(), MaxOutputFlag())...), append(FilterFlags(), CatalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return UsageErrorf(c, "missing TOOL: skillpm run TOOL [KEY=VALUE...]")
			}
			input, err := toolInput(e, c.String("input"), c.Args().Slice()[1:])
			if err != nil {
				return UsageErrorf(c, "%v", err)
			}
			cat, err := PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			run, err := RunOptions(e, c)
			if err != nil {
				return err
			}
			res, err := cat.CallTool(c.Context, c.Args().First(), input, run)
			if res == nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "%s\n", res.Output)
			return err
		},
	}
}

// toolInput builds the input object from --input and KEY=VALUE arguments.
func toolInput(e *Env, input string, kvs []string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if input != "" {
		var data []byte
		var err error
		switch {
		case input == "-":
			data, err = io.ReadAll(e.Stdin)
		case strings.HasPrefix(input, "@"):
			data, err = os.ReadFile(input[1:])
		default:
			data = []byte(input)
		}
		if err != nil {
			return nil, fmt.Errorf("read --input: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, fmt.Errorf("--input must be a JSON object: %v", errOr(err, "got null"))
		}
		if dec.More() {
			return nil, fmt.Errorf("--input must be a single JSON object")
		}
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not KEY=VALUE", kv)
		}
		obj[k] = kvValue(v)
	}
	return json.Marshal(obj)
}

// kvValue reads VALUE as JSON if it is JSON, else as a string.
func kvValue(v string) json.RawMessage {
	if json.Valid([]byte(v)) && strings.TrimSpace(v) != "" {
		return json.RawMessage(strings.TrimSpace(v))
	}
	b, _ := json.Marshal(v) // a string always marshals
	return b
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
