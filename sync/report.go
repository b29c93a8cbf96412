package sync

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/verify"
)

// Action is what a run did with one version.
type Action string

// Actions.
const (
	// ActionCopied: the version (or its missing referrers) was copied.
	ActionCopied Action = "copied"
	// ActionPlanned: a dry run would copy the version.
	ActionPlanned Action = "copy"
	// ActionSkipped: the mirror already has the version and its referrers.
	ActionSkipped Action = "skipped"
	// ActionRejected: the version failed vetting (Check says which) and
	// was not copied.
	ActionRejected Action = "rejected"
	// ActionFailed: a fault (a registry down, a blob failing) stopped
	// the copy; the next run retries it.
	ActionFailed Action = "failed"
)

// ErrRejected is returned by Run when some versions failed vetting and
// none failed otherwise.
var ErrRejected = errors.New("some versions were rejected by the sync policy")

// Item is one version, or one repository that could not be listed.
type Item struct {
	// Repository is the path below the From prefix.
	Repository string `json:"repository"`
	Tag        string `json:"tag,omitempty"`
	Version    string `json:"version,omitempty"`
	Digest     string `json:"digest,omitempty"`
	Action     Action `json:"action"`
	// Check is the vetting check a rejected version failed: lint,
	// license, permissions, audit, signature, content or digest.
	Check  string `json:"check,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Referrers counts the upstream referrers (signatures,
	// attestations) copied along, at most maxReferrersCopied (64).
	Referrers int `json:"referrers"`
	// ReferrersLeftOut counts the upstream referrers not copied for
	// being over that bound: the version's own that the mirror does not
	// hold, and, when the run copied, referrers of referrers and those
	// listed under a node their manifest does not name as its subject.
	ReferrersLeftOut int `json:"referrers_left_out,omitempty"`
	// Signer is the verified signer identity, when signatures were
	// vetted.
	Signer string `json:"signer,omitempty"`
	// Attested is true when this run attached the mirror's vetted
	// attestation (or, in a dry run, would).
	Attested bool `json:"attested,omitempty"`
	// Findings are the audit findings that rejected the version (check
	// "audit"), worst first.
	Findings []audit.Finding `json:"findings,omitempty"`
	// Audit is the content audit's result for an accepted version, when
	// the policy audits; the vetted attestation records the same.
	Audit *verify.AuditSummary `json:"audit,omitempty"`

	err error
}

// String formats the item as one report line.
func (it Item) String(dryRun bool) string {
	name := it.Repository
	if it.Version != "" {
		name += "@" + it.Version
	}
	var b strings.Builder
	verb := string(it.Action)
	if dryRun && it.Action == ActionPlanned {
		verb = "would copy"
	}
	fmt.Fprintf(&b, "%-10s %s", verb, name)
	if it.Digest != "" {
		fmt.Fprintf(&b, " %s", shortDigest(it.Digest))
	}
	var notes []string
	if it.Referrers > 0 && (it.Action == ActionCopied || it.Action == ActionPlanned) {
		notes = append(notes, fmt.Sprintf("+%d referrers", it.Referrers))
	}
	if it.ReferrersLeftOut > 0 {
		notes = append(notes, fmt.Sprintf("%d referrers left out, over the limit of %d", it.ReferrersLeftOut, maxReferrersCopied))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
	}
	if it.Attested {
		b.WriteString(" [vetted]")
	}
	switch {
	case it.Check != "":
		fmt.Fprintf(&b, ": %s: %s", it.Check, it.Reason)
	case it.Reason != "" && it.Action != ActionSkipped:
		fmt.Fprintf(&b, ": %s", it.Reason)
	}
	return b.String()
}

func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19]
	}
	return d
}

// Report is the outcome of a run, complete even when the run failed.
type Report struct {
	From     string `json:"from"`
	To       string `json:"to"`
	DryRun   bool   `json:"dry_run"`
	Items    []Item `json:"items"`
	Copied   int    `json:"copied"`
	Planned  int    `json:"planned"`
	Skipped  int    `json:"skipped"`
	Rejected int    `json:"rejected"`
	Failed   int    `json:"failed"`
	// Attested counts the versions given the mirror's vetted attestation.
	Attested int      `json:"attested"`
	Uploaded Uploaded `json:"uploaded"`
}

// finish sorts the items and counts them.
func (r *Report) finish() {
	sort.SliceStable(r.Items, func(i, j int) bool { return r.Items[i].Repository < r.Items[j].Repository })
	r.Copied, r.Planned, r.Skipped, r.Rejected, r.Failed, r.Attested = 0, 0, 0, 0, 0, 0
	for _, it := range r.Items {
		if it.Attested {
			r.Attested++
		}
		switch it.Action {
		case ActionCopied:
			r.Copied++
		case ActionPlanned:
			r.Planned++
		case ActionSkipped:
			r.Skipped++
		case ActionRejected:
			r.Rejected++
		case ActionFailed:
			r.Failed++
		}
	}
}

// err is the run's outcome as an error.
func (r *Report) err() error {
	for _, it := range r.Items {
		if it.Action == ActionFailed {
			e := it.err
			if e == nil {
				e = errors.New(it.Reason)
			}
			return fmt.Errorf("sync %s to %s: %d failed, %d copied (run it again to finish): %s: %w", r.From, r.To, r.Failed, r.Copied, it.Repository, e)
		}
	}
	if r.Rejected > 0 {
		return fmt.Errorf("sync %s to %s: %w: %d rejected", r.From, r.To, ErrRejected, r.Rejected)
	}
	return nil
}

// Write prints the report for people: one line per version, then the
// totals.
func (r *Report) Write(w io.Writer) error {
	var b bytes.Buffer
	for _, it := range r.Items {
		fmt.Fprintln(&b, it.String(r.DryRun))
	}
	if r.DryRun {
		fmt.Fprintf(&b, "dry run: %d to copy, %d skipped, %d rejected, %d failed\n", r.Planned, r.Skipped, r.Rejected, r.Failed)
	} else {
		fmt.Fprintf(&b, "%d copied, %d skipped, %d rejected, %d failed; uploaded %d blobs and %d manifests (%d bytes)\n",
			r.Copied, r.Skipped, r.Rejected, r.Failed, r.Uploaded.Blobs, r.Uploaded.Manifests, r.Uploaded.Bytes)
		if r.Attested > 0 {
			fmt.Fprintf(&b, "%d vetted attestations signed\n", r.Attested)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
