package resolve

import "slices"

// Why explains why the skill called name is in the solution, as dependency
// paths: each path starts at a wanted skill and ends at name. The path
// [name] means the project wants name directly; besides that there is one
// path through each skill that depends on name, the shortest one, so every
// reason name is installed is shown once. Paths are sorted by the skill that
// depends on name. Why returns nil if name is not in the solution.
//
// Why uses only the exported fields, so a Solution rebuilt from a lock file
// answers it too.
func (s *Solution) Why(name string) [][]string {
	byName := make(map[string]*Skill, len(s.Skills))
	for i := range s.Skills {
		byName[s.Skills[i].Name] = &s.Skills[i]
	}
	if byName[name] == nil {
		return nil
	}

	var roots []string
	for _, w := range s.Wants {
		if byName[w.Name] != nil {
			roots = append(roots, w.Name)
		}
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)

	var paths [][]string
	if slices.Contains(roots, name) {
		paths = append(paths, []string{name})
	}

	// Breadth-first search from the wants, never passing through name, so
	// the path to each skill is a shortest one that does not loop back.
	prev := make(map[string]string)
	reached := make(map[string]bool)
	var queue []string
	for _, r := range roots {
		if r != name {
			reached[r] = true
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, d := range sortedDeps(byName[x]) {
			if d == name || reached[d] || byName[d] == nil {
				continue
			}
			reached[d] = true
			prev[d] = x
			queue = append(queue, d)
		}
	}

	for _, k := range s.Skills {
		if k.Name == name || !reached[k.Name] || !slices.Contains(sortedDeps(&k), name) {
			continue
		}
		path := []string{name}
		for x := k.Name; ; x = prev[x] {
			path = append(path, x)
			if _, ok := prev[x]; !ok {
				break
			}
		}
		slices.Reverse(path)
		paths = append(paths, path)
	}
	return paths
}

// sortedDeps returns the names k depends on, sorted, without duplicates.
func sortedDeps(k *Skill) []string {
	names := make([]string, len(k.Dependencies))
	for i, d := range k.Dependencies {
		names[i] = d.Name
	}
	slices.Sort(names)
	return slices.Compact(names)
}
