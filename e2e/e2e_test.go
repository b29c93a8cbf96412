package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// binDir holds the skillpm binary built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "skillpm-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := buildSkillpm(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// buildSkillpm builds ./cmd/skillpm, the full CLI it hands most commands
// to (./cmd/skillpm-full) and its sigstore helper,
// ./cmd/skillpm-sigstore, into dir, so that scripts run the real
// programs exactly as users do (skillpm finds the helper beside itself).
func buildSkillpm(dir string) error {
	// With the README's install flags: -tags urfave_cli_no_docs (and
	// scripts/test precompiles with the same tags).
	args := []string{"build", "-tags", "urfave_cli_no_docs", "-o", dir + string(filepath.Separator)}
	if os.Getenv("SKILLPM_E2E_RACE") != "" {
		// CI runs the suite once more with a race-detecting binary:
		// install, pull and the MCP server are concurrent.
		args = append(args, "-race")
	}
	if os.Getenv("GOCOVERDIR") != "" {
		// go test -cover with GOCOVERDIR set: let the binary write coverage
		// data too (testscript passes GOCOVERDIR on to scripts).
		args = append(args, "-cover", "-coverpkg=github.com/skillpm/skillpm/...")
	}
	args = append(args, "github.com/skillpm/skillpm/cmd/skillpm", "github.com/skillpm/skillpm/cmd/skillpm-full", "github.com/skillpm/skillpm/cmd/skillpm-sigstore")
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func exeSuffix() string {
	if filepath.Separator == '\\' {
		return ".exe"
	}
	return ""
}

// TestScripts runs the scripts in testdata/script: those that use a
// registry (see usesRegistry) against every registry kind, the others once,
// under the first kind; each as TestScripts/<kind>/<script>. Kinds run in
// parallel, and so do the scripts within a kind; each kind shares one
// registry server ($REGISTRY), so scripts use repository names of their
// own (see README.md).
func TestScripts(t *testing.T) {
	runScripts(t, filepath.Join("testdata", "script"))
}

// TestHarness checks the harness itself (the registries and the custom
// commands) with the scripts in testdata/harness.
func TestHarness(t *testing.T) {
	runScripts(t, filepath.Join("testdata", "harness"))
}

func runScripts(t *testing.T, dir string) {
	registryKinds, err := kinds()
	if err != nil {
		t.Fatal(err)
	}
	withRegistry, without := splitScripts(t, dir)
	for i, k := range registryKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			if i == 0 && len(without) > 0 {
				// No registry: these run even when k's binary is missing.
				testscript.Run(t, scriptParams(without, k, "", nil))
			}
			if len(withRegistry) == 0 {
				return
			}
			bin := k.binary(t)
			srv, err := startTestServer(t, k.name, bin, serverOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s registry at %s (log %s)", k.name, srv.addr, srv.logPath)
			testscript.Run(t, scriptParams(withRegistry, k, bin, srv))
		})
	}
}

// usesRegistry matches a script that depends on the registry kind it runs
// against: one that names $REGISTRY or $REGISTRY_KIND (anywhere in the
// file, so a program in its archive that reads them counts too), has a
// [kind:…] condition, or runs the registry command. Those are the only ways
// a script reaches a test registry: the harness gives a script the shared
// server's address only as $REGISTRY, and starts another only for
// 'registry start'. A script that matches nothing runs with neither
// variable set, and 'registry' and [kind:…] fail in it (scriptParams).
var usesRegistry = regexp.MustCompile(`(?m)\bREGISTRY(_KIND)?\b|\[!?kind:|^[ \t]*((\[[^\]\n]*\]|!|\?)[ \t]*)*registry([ \t]|$)`)

// errNoRegistry is what 'registry' and [kind:…] say in a script that runs
// without a registry, should one slip past usesRegistry.
var errNoRegistry = errors.New("this script runs without a registry: usesRegistry (e2e/e2e_test.go) found no $REGISTRY, $REGISTRY_KIND, [kind:…] or registry command in it")

// splitScripts returns the scripts in dir (the .txtar and .txt files, as
// testscript reads a folder) that use a registry, and those that do not.
func splitScripts(t *testing.T, dir string) (withRegistry, without []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := e.Name(); !strings.HasSuffix(name, ".txtar") && !strings.HasSuffix(name, ".txt") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if usesRegistry.Match(data) {
			withRegistry = append(withRegistry, path)
		} else {
			without = append(without, path)
		}
	}
	if len(withRegistry)+len(without) == 0 {
		t.Fatalf("no scripts in %s", dir)
	}
	return withRegistry, without
}

// scriptEnv is what a script's custom commands need to know about the run.
type scriptEnv struct {
	kind   registryKind
	bin    string     // the kind's registry binary, for 'registry start'; "" in a script without a registry
	tb     testing.TB // the script's own test
	extras map[string]*server
}

type scriptEnvKey struct{}

// scriptParams runs files against srv, a server of kind k started from bin;
// with srv nil, without a registry.
func scriptParams(files []string, k registryKind, bin string, srv *server) testscript.Params {
	return testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("SKILLPM_E2E_UPDATE") != "",
		Setup: func(e *testscript.Env) error {
			tb, ok := e.T().(testing.TB)
			if !ok {
				return fmt.Errorf("testscript T %T is not a testing.TB", e.T())
			}
			home := tb.TempDir() // outside $WORK, so 'lint .' never sees it
			e.Setenv("PATH", binDir+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("SKILLPM_HOME", home)
			// The machine's /etc/skillpm/config.yaml must not leak in;
			// a script writes this file to test a system policy.
			e.Setenv("SKILLPM_SYSTEM_CONFIG", filepath.Join(home, "system-config.yaml"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("LANG", "C.UTF-8")
			if srv != nil {
				e.Setenv("REGISTRY", srv.addr)
				e.Setenv("REGISTRY_KIND", k.name)
			}
			e.Setenv("COSIGN", cosignBin())
			e.Setenv("MCP_JS", mcpJSModules())
			e.Setenv("ORAS", orasBin())
			e.Values[scriptEnvKey{}] = &scriptEnv{kind: k, bin: bin, tb: tb, extras: map[string]*server{}}
			e.Values[faultProxiesKey{}] = &sync.Map{}
			e.Values[hostilesKey{}] = &sync.Map{}
			e.Values[gitServersKey{}] = &sync.Map{}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "kind:"); ok {
				if srv == nil {
					return false, errNoRegistry
				}
				known := false
				for _, k := range allKinds() {
					known = known || k.name == name
				}
				if !known {
					return false, fmt.Errorf("unknown registry kind %q in [%s]", name, cond)
				}
				return name == k.name, nil
			}
			if cond == "ci" {
				return inCI(), nil
			}
			if cond == "cosign" {
				if err := waitPeer("cosign"); err != nil {
					return false, err
				}
				// Under CI a missing cosign fails the script: no silent skips.
				if cosignBin() == "" && inCI() {
					return false, fmt.Errorf("cosign is required when CI is set: run scripts/test, which builds it, or set SKILLPM_COSIGN_BIN")
				}
				return cosignBin() != "", nil
			}
			if ok, known, err := peerCondition(cond); known {
				return ok, err
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"skillpm-exit": cmdSkillpmExit,
			"httpget":      cmdHTTPGet,
			"registry":     cmdRegistry,
			"faultproxy":   cmdFaultProxy,
			"attach":       cmdAttach,
			"hostile":      cmdHostile,
			"publish-raw":  cmdPublishRaw,
			"push-layout":  cmdPushLayout,
			"interrupt":    cmdInterrupt,
			"gone":         cmdGone,
			"wellknown":    cmdWellKnown,
			"gitrepo":      cmdGitRepo,
			"gitserve":     cmdGitServe,
			"gitcred":      cmdGitCred,
			"with-fd":      cmdWithFD,
		},
	}
}
