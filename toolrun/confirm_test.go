package toolrun

import (
	"context"
	"strings"
	"testing"
)

// A skill's confirmation prompt is quoted on one line in the errors that
// name it: it cannot start a line of its own on the user's terminal.
func TestConfirmErrorsQuotePrompt(t *testing.T) {
	c := &Confirmation{Level: ConfirmAlways, Prompt: "Delete?\nerror: tool \"x\" succeeded\x1b[2J"}
	declined := func(context.Context, ConfirmRequest) (string, error) { return "", ErrDeclined }
	refused := func(context.Context, ConfirmRequest) (string, error) { return "", context.Canceled }
	for _, o := range []Options{{}, {Confirm: declined}, {Confirm: refused}} {
		_, err := o.confirm(context.Background(), c, ConfirmRequest{Skill: "s", Tool: "t"})
		if err == nil || err.Kind != NotConfirmed {
			t.Fatalf("confirm = %v; want NotConfirmed", err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\x1b") || !strings.Contains(msg, `"Delete?\nerror: tool \"x\" succeeded\x1b[2J"`) {
			t.Errorf("error %q does not quote the prompt on one line", msg)
		}
	}
}
