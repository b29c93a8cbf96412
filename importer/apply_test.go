package importer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
)

func TestApplyWritesSources(t *testing.T) {
	dir := t.TempDir()
	p := &Plan{sources: []*Proposal{
		{Name: "docx", Kind: KindGit, Entry: Entry{Git: "github.com/anthropics/skills", Path: "skills/docx", Ref: "main"}},
		{Name: "dev", Kind: KindLocal, Entry: Entry{Local: "./skills/dev"}},
	}}
	if p.Adds() {
		t.Fatal("a plan of source entries adds through a manager")
	}
	written, err := p.Apply(context.Background(), ApplyOptions{Project: dir, Registry: "oci:./registry"})
	if err != nil {
		t.Fatal(err)
	}
	if written {
		t.Error("lock reported written; only skills.yaml was")
	}
	m, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Registry != "oci:./registry" {
		t.Errorf("new skills.yaml registry = %q; want oci:./registry", m.Registry)
	}
	if w := m.Skills["docx"]; w.Git != "github.com/anthropics/skills" || w.Path != "skills/docx" || w.Ref != "main" {
		t.Errorf("docx = %+v", w)
	}
	if w := m.Skills["dev"]; w.Local != "./skills/dev" {
		t.Errorf("dev = %+v", w)
	}
}

func TestApplyRefusesBadSourceAndNeedsManager(t *testing.T) {
	dir := t.TempDir()
	bad := &Plan{sources: []*Proposal{{Name: "x", Kind: KindLocal, Entry: Entry{Local: "../outside"}}}}
	if _, err := bad.Apply(context.Background(), ApplyOptions{Project: dir}); err == nil {
		t.Error("a local entry outside the project was written")
	}
	if _, err := os.Stat(filepath.Join(dir, project.FileName)); !os.IsNotExist(err) {
		t.Errorf("skills.yaml written for a refused entry: %v", err)
	}
	adds := &Plan{wants: []manager.Want{{Name: "pdf", Constraint: "1.0.0"}}}
	if _, err := adds.Apply(context.Background(), ApplyOptions{Project: dir}); err == nil || !strings.Contains(err.Error(), "manager") {
		t.Errorf("adding without a manager: err = %v", err)
	}
}
