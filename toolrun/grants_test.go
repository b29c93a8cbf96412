package toolrun

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSecretGrants runs a bash tool and a script that print what they see
// of two declared secrets, under different grants.
func TestSecretGrants(t *testing.T) {
	dir := writeSkill(t, map[string]file{
		"env.sh": {body: "#!/bin/bash\ncat >/dev/null\necho \"aws=${AWS_SECRET_ACCESS_KEY-unset} region=${DEPLOY_REGION-unset} key=${SKILLPM_KEY_PASSWORD-unset}\"\n"},
	})
	host := []string{"PATH=" + os.Getenv("PATH"), "AWS_SECRET_ACCESS_KEY=aws-secret", "DEPLOY_REGION=eu", "SKILLPM_KEY_PASSWORD=pw"}
	declared := []string{"AWS_SECRET_ACCESS_KEY", "DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"}
	tests := []struct {
		name         string
		grants       Grants
		allowEnv     []string
		want         string
		wantWithheld []string
	}{
		{
			name:         "declared but not allowed",
			want:         "aws=unset region=unset key=unset",
			wantWithheld: []string{"AWS_SECRET_ACCESS_KEY", "DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"},
		},
		{
			name:         "granted to this skill",
			grants:       Grants{"deploy": {"AWS_SECRET_ACCESS_KEY"}},
			want:         "aws=[REDACTED:AWS_SECRET_ACCESS_KEY] region=unset key=unset",
			wantWithheld: []string{"DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"},
		},
		{
			name:         "granted to another skill",
			grants:       Grants{"other": {"AWS_SECRET_ACCESS_KEY", "DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"}},
			want:         "aws=unset region=unset key=unset",
			wantWithheld: []string{"AWS_SECRET_ACCESS_KEY", "DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"},
		},
		{
			name:         "allowed for every skill (--env)",
			allowEnv:     []string{"DEPLOY_REGION", "SKILLPM_KEY_PASSWORD"},
			want:         "aws=unset region=eu key=pw",
			wantWithheld: []string{"AWS_SECRET_ACCESS_KEY"},
		},
		{
			// A grant never passes a variable the skill does not declare.
			name:     "granted but not declared",
			grants:   Grants{"deploy": append(slices.Clone(declared), "HOSTNAME")},
			allowEnv: []string{"PWD"},
			want:     "aws=[REDACTED:AWS_SECRET_ACCESS_KEY] region=eu key=pw",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var withheld []string
			var withheldSkill string
			opts := Options{Env: host, Grants: tt.grants, AllowEnv: tt.allowEnv, Withheld: func(skill string, names []string) {
				withheldSkill, withheld = skill, names
			}}
			res, err := RunTool(context.Background(), Tool{Skill: "deploy", Name: "t", Dir: dir, Entrypoint: "env.sh", Secrets: declared}, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Trim(string(res.Output), `"`); got != tt.want {
				t.Errorf("RunTool saw %s; want %s", got, tt.want)
			}
			if !reflect.DeepEqual(withheld, tt.wantWithheld) {
				t.Errorf("withheld = %q; want %q", withheld, tt.wantWithheld)
			}
			if len(withheld) > 0 && withheldSkill != "deploy" {
				t.Errorf("withheld reported for skill %q; want deploy", withheldSkill)
			}
			ex, err := Exec(context.Background(), Script{Skill: "deploy", Dir: dir, Path: "env.sh", Secrets: declared}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(ex.Stdout); got != tt.want {
				t.Errorf("Exec saw %s; want %s", got, tt.want)
			}
		})
	}
}

func TestGrantsUntrusted(t *testing.T) {
	g := Grants{
		"deploy": {"DEPLOY_REGION", "AWS_SECRET_ACCESS_KEY", "OCR_SERVICE_API_KEY"},
		"pdf":    {"PDF_DPI", "SKILLPM_KEY_PASSWORD", "GITHUB_TOKEN"},
	}
	safe, refused := g.Untrusted()
	if want := (Grants{"deploy": {"DEPLOY_REGION"}, "pdf": {"PDF_DPI"}}); !reflect.DeepEqual(safe, want) {
		t.Errorf("safe = %v; want %v", safe, want)
	}
	want := []Refused{
		{"deploy", "AWS_SECRET_ACCESS_KEY"}, {"deploy", "OCR_SERVICE_API_KEY"},
		{"pdf", "SKILLPM_KEY_PASSWORD"}, {"pdf", "GITHUB_TOKEN"},
	}
	if !reflect.DeepEqual(refused, want) {
		t.Errorf("refused = %v; want %v", refused, want)
	}
}

func TestSensitive(t *testing.T) {
	for _, n := range []string{
		"AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "SKILLPM_KEY_PASSWORD", "GITHUB_TOKEN", "GH_TOKEN",
		"OPENAI_API_KEY", "OCR_SERVICE_API_KEY", "DB_PASSWORD", "PGPASSWORD", "SSH_AUTH_SOCK",
		"GOOGLE_APPLICATION_CREDENTIALS", "VAULT_ADDR", "stripe_secret", "SIGNING_KEY", "KUBECONFIG",
		"DATABASE_URL", "NPM_CONFIG_USERCONFIG", "MY_PASS",
	} {
		if !Sensitive(n) {
			t.Errorf("Sensitive(%q) = false; want true", n)
		}
	}
	for _, n := range []string{"DEPLOY_REGION", "PDF_DPI", "OCR_ENDPOINT", "SLACK_CHANNEL", "LOG_LEVEL"} {
		if Sensitive(n) {
			t.Errorf("Sensitive(%q) = true; want false", n)
		}
	}
}

func TestGrantsValidateMerge(t *testing.T) {
	if err := (Grants{"deploy": {"AWS_PROFILE", "_X1"}}).Validate(); err != nil {
		t.Errorf("Validate of good names: %v", err)
	}
	for _, bad := range []string{"", "1ABC", "A-B", "A=B", "A B"} {
		err := (Grants{"deploy": {bad}}).Validate()
		if err == nil || !strings.Contains(err.Error(), `skill "deploy"`) {
			t.Errorf("Validate(%q) = %v; want an error naming the skill", bad, err)
		}
	}
	got := Grants{"a": {"X"}}.Merge(Grants{"a": {"X", "Y"}, "b": {"Z"}})
	if want := (Grants{"a": {"X", "Y"}, "b": {"Z"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v; want %v", got, want)
	}
}
