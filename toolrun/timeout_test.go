package toolrun

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSeconds(t *testing.T) {
	maxSecs := int64(math.MaxInt64 / time.Second)
	tests := []struct {
		n    int64
		want time.Duration
	}{
		{0, 0},
		{-5, 0},
		{math.MinInt64, 0},
		{30, 30 * time.Second},
		{1_000_000_000, 1_000_000_000 * time.Second},
		{maxSecs, time.Duration(maxSecs) * time.Second},
		// One more second, or any larger count, would overflow: saturate.
		{maxSecs + 1, math.MaxInt64},
		{10_000_000_000, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := Seconds(tt.n); got != tt.want {
			t.Errorf("Seconds(%d) = %v; want %v", tt.n, got, tt.want)
		}
	}
}

func TestRunTimeout(t *testing.T) {
	tests := []struct {
		name       string
		own, limit time.Duration
		want       time.Duration
	}{
		{"nothing set", 0, 0, DefaultTimeout},
		{"own only", 2 * time.Minute, 0, 2 * time.Minute},
		{"own above the built-in cap", Seconds(1_000_000_000), 0, MaxTimeout},
		{"own saturated", Seconds(math.MaxInt64), 0, MaxTimeout},
		{"limit only", 0, time.Second, time.Second},
		{"limit below own", Seconds(1_000_000_000), time.Second, time.Second},
		{"limit below saturated own", Seconds(math.MaxInt64), time.Second, time.Second},
		{"own below limit", 5 * time.Second, time.Hour, 5 * time.Second},
		{"limit above the built-in cap", Seconds(1_000_000_000), time.Hour, time.Hour},
		{"negative own", -time.Second, 0, DefaultTimeout},
	}
	for _, tt := range tests {
		if got := runTimeout(tt.own, tt.limit); got != tt.want {
			t.Errorf("%s: runTimeout(%v, %v) = %v; want %v", tt.name, tt.own, tt.limit, got, tt.want)
		}
	}
}

// TestUserLimitCapsOwnTimeout runs a tool and a script that declare a
// timeout far beyond any sane run (one that would overflow a Duration if
// multiplied naively) under a short user limit: the user's limit wins.
func TestUserLimitCapsOwnTimeout(t *testing.T) {
	dir := writeSkill(t, map[string]file{"slow.sh": {body: "#!/bin/bash\nsleep 300\n"}})
	opts := Options{Timeout: 200 * time.Millisecond}
	for _, own := range []time.Duration{Seconds(1_000_000_000), Seconds(math.MaxInt64)} {
		_, err := RunTool(context.Background(), Tool{Skill: "s", Name: "t", Dir: dir, Entrypoint: "slow.sh", Timeout: own}, nil, opts)
		if got := kindOf(t, err); got != ExecutionTimeout {
			t.Fatalf("RunTool with own timeout %v: kind = %q (%v); want %q", own, got, err, ExecutionTimeout)
		}
		if !strings.Contains(err.Error(), "timed out after 200ms") {
			t.Errorf("RunTool error = %q; want the user's limit, 200ms", err)
		}
		_, err = Exec(context.Background(), Script{Skill: "s", Dir: dir, Path: "slow.sh", Timeout: own}, opts)
		if got := kindOf(t, err); got != ExecutionTimeout {
			t.Fatalf("Exec with own timeout %v: kind = %q (%v); want %q", own, got, err, ExecutionTimeout)
		}
		if !strings.Contains(err.Error(), "timed out after 200ms") {
			t.Errorf("Exec error = %q; want the user's limit, 200ms", err)
		}
	}
}
