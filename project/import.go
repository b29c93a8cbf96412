package project

import (
	"fmt"

	"github.com/skillpm/skillpm/skill"
)

// CheckSource reports whether w is an entry for name that Parse would
// accept: a valid skill name and one well-formed source. 'skillpm
// import' writes entries read from other installers' files (hostile
// input), so it checks each with CheckSource before SetSource.
func CheckSource(name string, w Want) error {
	if !skill.ValidName(name) {
		return fmt.Errorf("skills: %q is not a valid skill name (lowercase letters, digits and single hyphens)", name)
	}
	if err := w.validate(map[string]bool{}); err != nil {
		return fmt.Errorf("skill %q: %w", name, err)
	}
	return nil
}
