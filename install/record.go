package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/skill"
)

// RecordName is the file in each target folder that lists the skills
// skillpm installed there, like npm's node_modules/.package-lock.json.
// Agents ignore it: it is not a skill folder.
const RecordName = ".skillpm-install.json"

// Record lists the managed skills of one target folder.
type Record struct {
	Version int                     `json:"version"`
	Skills  map[string]*RecordSkill `json:"skills"`
}

// RecordSkill is one managed skill as installed.
type RecordSkill struct {
	Version    string   `json:"version"`
	Repository string   `json:"repository"`
	Manifest   string   `json:"manifest"`
	Tree       string   `json:"tree"`
	Stat       string   `json:"stat"`
	Files      []string `json:"files"`
	// Owner is the project that installed the skill (its lock's path).
	Owner string `json:"owner,omitempty"`
	// Pending journals an install or update that was about to be swapped
	// in: after a crash the folder holds either the recorded tree or this
	// one, and both count as unedited.
	Pending *RecordSkill `json:"pending,omitempty"`
}

// ReadRecord reads a target's record. A missing or unreadable record reads
// as empty with corrupt set for the latter: the caller rebuilds it from the
// lock and the files.
func ReadRecord(target string) (rec *Record, corrupt bool) {
	rec = &Record{Version: 1, Skills: map[string]*RecordSkill{}}
	data, err := os.ReadFile(filepath.Join(target, RecordName))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, false
	}
	if err != nil {
		return rec, true
	}
	var r Record
	if json.Unmarshal(data, &r) != nil || r.Version != 1 {
		return rec, true
	}
	for name := range r.Skills {
		if !skill.ValidName(name) { // a name is a folder: never trust one that could leave the target
			return rec, true
		}
	}
	if r.Skills == nil {
		r.Skills = map[string]*RecordSkill{}
	}
	return &r, false
}

// Write saves the record atomically; an empty record removes the file.
func (r *Record) Write(target string) error {
	p := filepath.Join(target, RecordName)
	if len(r.Skills) == 0 {
		err := os.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return lockfile.WriteFileAtomic(p, append(data, '\n'), 0o644)
}
