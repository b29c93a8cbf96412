package toolrun

import (
	"context"
	"errors"
	"fmt"
)

// Confirmation levels (Universal §8: a tool's confirmation.level and a
// skill's safety.require_confirmation_for).
const (
	ConfirmNever             = "never"
	ConfirmAlways            = "always"
	ConfirmDestructiveWrites = "destructive_writes"
	ConfirmExternalNetwork   = "external_network"
)

// Confirmation is the gate in front of one tool or script: a user must
// confirm before it runs.
type Confirmation struct {
	// Level is why: always, destructive_writes or external_network.
	Level string `json:"level"`
	// Prompt is what to show the user (the tool's confirmation.prompt, or
	// a sentence skillpm makes from the level).
	Prompt string `json:"prompt"`
}

// ConfirmRequest is what Options.Confirm is asked to confirm.
type ConfirmRequest struct {
	Skill  string
	Tool   string // empty for a script (Exec)
	Script string // empty for a tool (RunTool)
	Confirmation
}

// Subject names what is to run, for a prompt: `tool "x" of skill "y"`.
func (r ConfirmRequest) Subject() string {
	if r.Tool != "" {
		return fmt.Sprintf("tool %q of skill %q", r.Tool, r.Skill)
	}
	return fmt.Sprintf("script %q of skill %q", r.Script, r.Skill)
}

// ErrDeclined is what an Options.Confirm function returns (wrapped or
// not) when the user said no.
var ErrDeclined = errors.New("the user declined")

// confirm asks opts.Confirm about a gated run. It returns how the run
// was confirmed (for the audit log) or a NotConfirmed error.
func (o Options) confirm(ctx context.Context, c *Confirmation, r ConfirmRequest) (string, *Error) {
	if c == nil {
		return "", nil
	}
	r.Confirmation = *c
	if o.Confirm == nil {
		return "", &Error{Kind: NotConfirmed, Msg: fmt.Sprintf("needs confirmation (%s: %q) and nothing can ask the user", c.Level, c.Prompt)}
	}
	how, err := o.Confirm(ctx, r)
	if err == nil {
		if how == "" {
			how = "confirmed"
		}
		return how, nil
	}
	if errors.Is(err, ErrDeclined) {
		return "declined", &Error{Kind: NotConfirmed, Msg: fmt.Sprintf("not confirmed (%s: %q)", c.Level, c.Prompt), Err: err}
	}
	return "refused", &Error{Kind: NotConfirmed, Msg: fmt.Sprintf("needs confirmation (%s: %q)", c.Level, c.Prompt), Err: err}
}
