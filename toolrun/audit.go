package toolrun

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// AuditLog receives one JSON line per run (see AuditRecord). It is safe
// for concurrent use; give the same *AuditLog to every run.
type AuditLog struct {
	mu sync.Mutex
	w  io.Writer
	// Caller is recorded with every run: "cli" or "mcp".
	Caller string
}

// NewAuditLog returns an AuditLog writing to w (an append-only file).
func NewAuditLog(w io.Writer, caller string) *AuditLog { return &AuditLog{w: w, Caller: caller} }

// Origin identifies the skill a tool or script comes from, for the audit
// log: its version and, for a skill skillpm installed, the install
// record's digests.
type Origin struct {
	Version  string `json:"version,omitempty"`
	Manifest string `json:"manifest,omitempty"` // the locked manifest digest
	Tree     string `json:"tree,omitempty"`     // the digest of the files as installed
}

// AuditRecord is one line of the audit log. It holds no input, output or
// environment, and what it quotes of an error (Denied) has the declared
// secrets' values redacted, so no secret can reach it.
type AuditRecord struct {
	Time   time.Time `json:"time"`
	Caller string    `json:"caller"`
	Skill  string    `json:"skill"`
	Origin
	Dir        string `json:"dir"`
	Tool       string `json:"tool,omitempty"`
	Script     string `json:"script,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   int    `json:"exit"`
	Error      Kind   `json:"error,omitempty"`
	Denied     string `json:"denied,omitempty"` // what the sandbox denied
	Sandbox    string `json:"sandbox"`          // off, default, strict
	// Confirmation is how a gated run was confirmed (--yes, prompt,
	// elicitation), or declined or refused; empty for runs without a
	// gate.
	Confirmation string `json:"confirmation,omitempty"`
}

// record appends r; write errors are ignored (the run's outcome does not
// depend on the log).
func (a *AuditLog) record(r AuditRecord) {
	if a == nil || a.w == nil {
		return
	}
	r.Caller = a.Caller
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(append(b, '\n'))
}

// audit records a finished run: r says what ran (Skill, Origin, Dir,
// Tool or Script, Confirmation); the rest is filled in here.
func (o Options) audit(r AuditRecord, start time.Time, exit int, err error) {
	if o.Audit == nil {
		return
	}
	r.Time, r.DurationMS, r.ExitCode = start.UTC(), time.Since(start).Milliseconds(), exit
	r.Error, r.Sandbox = KindOf(err), string(o.Sandbox.mode())
	if e, ok := err.(*Error); ok && e.Kind == PermissionDenied {
		r.Denied = e.Msg
	}
	o.Audit.record(r)
}
