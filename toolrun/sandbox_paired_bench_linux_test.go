//go:build linux

package toolrun

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/skillpm/skillpm/sandbox"
)

// BenchmarkSandboxPaired is BenchmarkSandbox for a loaded machine: each
// iteration runs the same handler once unconfined, once under the default
// profile and once under declared permissions, in rotating order, and
// reports the medians of each (wall ms) and of the per-iteration
// differences from the unconfined run (the overhead), plus the CPU time
// (this process and its children) each costs. Interleaving exposes every
// case to the same load, which separate sub-benchmarks do not.
func BenchmarkSandboxPaired(b *testing.B) {
	if err := sandbox.Available(); err != nil {
		b.Fatalf("cannot enforce: %v", err)
	}
	py, err := realInterpreter("python3", RuntimePython, os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	for _, rt := range []struct{ name, entry, body string }{
		{"bash", "h.sh", "#!/bin/bash\ninput=$(cat)\necho '{\"sum\":5}'\n"},
		{"python", "h.py", "def handler(args):\n    return {'sum': args['a'] + args['b']}\n"},
	} {
		b.Run(rt.name, func(b *testing.B) {
			dir := writeSkill(b, map[string]file{rt.entry: {body: rt.body}})
			cases := []struct {
				name  string
				box   *Sandbox
				perms sandbox.Permissions
			}{
				{"off", nil, sandbox.Permissions{}},
				{"default", &Sandbox{Mode: sandbox.Default}, sandbox.Permissions{}},
				{"declared", &Sandbox{Mode: sandbox.Default}, sandbox.Permissions{Declared: true, Write: []string{"output/**"}}},
			}
			in := json.RawMessage(`{"a":2,"b":3}`)
			wall := make([][]float64, len(cases))
			cpu := make([][]float64, len(cases))
			diff := make([][]float64, len(cases))
			work := b.TempDir()
			for i := 0; b.Loop(); i++ {
				got := make([]float64, len(cases))
				for j := range cases {
					k := (i + j) % len(cases)
					c := cases[k]
					opts := Options{WorkDir: work, Env: os.Environ(), Sandbox: c.box, PythonPath: py}
					tool := Tool{Skill: "bench", Dir: dir, Name: "add", Entrypoint: rt.entry, Permissions: c.perms}
					c0, t0 := cpuTime(), time.Now()
					if _, err := RunTool(context.Background(), tool, in, opts); err != nil {
						b.Fatal(err)
					}
					got[k] = ms(time.Since(t0))
					wall[k] = append(wall[k], got[k])
					cpu[k] = append(cpu[k], ms(cpuTime()-c0))
				}
				for k := range cases {
					diff[k] = append(diff[k], got[k]-got[0])
				}
			}
			for k, c := range cases {
				b.ReportMetric(median(wall[k]), c.name+"-ms")
				b.ReportMetric(median(cpu[k]), c.name+"-cpu-ms")
				if k > 0 {
					b.ReportMetric(median(diff[k]), c.name+"-overhead-ms")
				}
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// cpuTime is the CPU time of this process and its reaped children.
func cpuTime() time.Duration {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	return time.Duration(s.Utime.Nano() + s.Stime.Nano() + c.Utime.Nano() + c.Stime.Nano())
}
