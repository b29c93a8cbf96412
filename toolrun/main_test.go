package toolrun

import (
	"fmt"
	"os"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/sandbox/netproxy"
)

// TestMain lets the test binary serve as the sandbox launcher, as the
// skillpm binary does: confined runs re-execute os.Executable().
func TestMain(m *testing.M) {
	if sandbox.IsLauncher(os.Args) {
		code, err := sandbox.Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	// And as skillpm-full serving a filtering proxy (ProxyProcess).
	if sandbox.IsProxyChild(os.Args) {
		os.Exit(netproxy.RunChild(os.Args, os.Stdin, os.Stdout))
	}
	// And as a skillpm that holds a run folder until it is killed.
	if os.Getenv(holdRunFolderEnv) != "" {
		holdRunFolder()
	}
	// And as another user removing a run folder (TestRemoveTreeLockedFolders).
	if dir := os.Getenv(removeTreeAsEnv); dir != "" {
		if err := removeTree(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// removeTreeAsEnv makes the test binary remove the run folder it names
// and exit (see TestMain).
const removeTreeAsEnv = "TOOLRUN_TEST_REMOVE_TREE"

// holdRunFolderEnv makes the test binary a skillpm that creates a run
// folder, prints its path and waits to be killed (see TestMain).
const holdRunFolderEnv = "TOOLRUN_TEST_HOLD_RUN_FOLDER"

func holdRunFolder() {
	r, err := newRunFolder()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(r.dir)
	select {}
}
