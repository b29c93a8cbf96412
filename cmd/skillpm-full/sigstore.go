package main

import (
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/internal/sigproto"
)

// sigstoreBackend returns the sigstore backend: the skillpm-sigstore helper
// program, started when a signature is first checked or made and ended
// after the command. skillpm itself does not link sigstore-go, whose
// package initialisers would cost every command's start-up (see package
// sigproto).
func sigstoreBackend(e *command.Env) sigproto.Backend {
	if e.SigHelper == nil {
		e.SigHelper = &sigproto.Helper{}
		e.AtExit(func() { e.SigHelper.Close() })
	}
	return e.SigHelper
}

// needSigstore fails, wrapping sigproto.ErrHelperMissing (exit 16), when
// the helper program cannot be found: a command that will check or make
// signatures says so before it starts rather than halfway.
func needSigstore() error {
	_, err := sigproto.FindHelper()
	return err
}
