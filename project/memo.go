package project

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/memo"
)

// memoKind names skills.yaml memos (internal/memo): the manifest's
// fields as JSON, once Parse accepted the bytes. Bump its version when
// Manifest, Want or Tools change (TestManifestMemoCoversFields fails
// until then).
const memoKind = "skillpm manifest memo v1"

// LoadMemo reads dir/skills.yaml as Load does, through the memo folder
// memoDir: bytes that were parsed and validated before are not parsed
// again (decoding YAML is most of what reading skills.yaml costs). ""
// for memoDir is Load. Reload reads through the same folder.
func LoadMemo(dir, memoDir string) (*Manifest, error) {
	if memoDir == "" {
		return Load(dir)
	}
	path := filepath.Join(dir, FileName)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	key := memo.Key(memoDir, memoKind, data)
	if b, ok := memo.Read(key, memoKind, 4*len(data)+64); ok {
		var m Manifest
		if json.Unmarshal(b, &m) == nil {
			if m.Skills == nil {
				m.Skills = map[string]Want{}
			}
			m.src, m.path, m.memoDir = data, path, memoDir
			return &m, nil
		}
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.path, m.memoDir = path, memoDir
	if b, err := json.Marshal(m); err == nil {
		memo.Write(key, memoKind, b)
	}
	return m, nil
}
