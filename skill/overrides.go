package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// ReservedHosts are the host identifiers the Universal spec reserves (§3),
// in its order. host_overrides entries and --host take these.
var ReservedHosts = []string{"claude-api", "claude-code", "mcp", "openai-responses", "codex-cli"}

// KnownHost reports whether h is one of ReservedHosts.
func KnownHost(h string) bool { return slices.Contains(ReservedHosts, h) }

// ErrBadOverride is wrapped by ApplyHostOverride's errors.
var ErrBadOverride = errors.New("invalid host override")

// A host override's config is a partial frontmatter laid over the skill's
// own when it is served to that host, with JSON Merge Patch (RFC 7396)
// semantics: a key replaces the base value, a mapping merges key by key,
// null deletes. One exception keeps tools addressable: config.tools is a
// list of partial tools matched to the base tools by name, each merged over
// its tool; it cannot add, remove or rename tools, and config.name cannot
// rename the skill.

// MergeOverride lays config over the frontmatter base (both as JSON values)
// and returns the result. It does not modify base or config.
func MergeOverride(base, config map[string]any) (map[string]any, error) {
	if n, ok := config["name"]; ok && n != base["name"] {
		return nil, fmt.Errorf("%w: config.name %v would rename the skill", ErrBadOverride, n)
	}
	out := mergePatch(base, withoutKey(config, "tools")).(map[string]any)
	patches, ok := config["tools"]
	if !ok {
		return out, nil
	}
	list, ok := patches.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: config.tools must be a list of partial tools", ErrBadOverride)
	}
	baseTools, _ := base["tools"].([]any)
	tools := slices.Clone(baseTools)
	for i, p := range list {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: config.tools[%d] must be a mapping", ErrBadOverride, i)
		}
		name, _ := pm["name"].(string)
		j := slices.IndexFunc(tools, func(t any) bool { m, _ := t.(map[string]any); return m != nil && m["name"] == name })
		if name == "" || j < 0 {
			return nil, fmt.Errorf("%w: config.tools[%d] names no declared tool (%q); overrides can only change existing tools", ErrBadOverride, i, name)
		}
		tools[j] = mergePatch(tools[j], pm)
	}
	out["tools"] = tools
	return out, nil
}

func withoutKey(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for key, v := range m {
		if key != k {
			out[key] = v
		}
	}
	return out
}

// mergePatch is RFC 7396 applied to decoded JSON values.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	out := map[string]any{}
	if ok {
		for k, v := range tm {
			out[k] = v
		}
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

// Override returns the config of the skill's override for host, or nil.
// When several entries name the host, the last wins.
func Override(ovs []HostOverride, host string) map[string]any {
	var cfg map[string]any
	for _, o := range ovs {
		if o.Host == host {
			cfg = o.Config
		}
	}
	return cfg
}

// ApplyHostOverride returns the description and tools a host sees once the
// host's override config (see MergeOverride) is laid over them. Only the
// fields that reach a host are applied: description, and each tool's
// description, input_schema and output_schema. tools is not modified.
func ApplyHostOverride(description string, tools []Tool, config map[string]any) (string, []Tool, error) {
	if config == nil {
		return description, tools, nil
	}
	base := map[string]any{"description": description}
	var list []any
	for _, t := range tools {
		m := map[string]any{"name": t.Name, "description": t.Description}
		for k, raw := range map[string]json.RawMessage{"input_schema": t.InputSchema, "output_schema": t.OutputSchema} {
			if len(raw) > 0 {
				var v any
				if err := json.Unmarshal(raw, &v); err == nil {
					m[k] = v
				}
			}
		}
		list = append(list, m)
	}
	base["tools"] = list
	merged, err := MergeOverride(base, config)
	if err != nil {
		return "", nil, err
	}
	desc, ok := merged["description"].(string)
	if !ok {
		return "", nil, fmt.Errorf("%w: description must stay a string", ErrBadOverride)
	}
	out := slices.Clone(tools)
	for i, mt := range merged["tools"].([]any) {
		m := mt.(map[string]any)
		if d, ok := m["description"].(string); ok {
			out[i].Description = d
		} else {
			return "", nil, fmt.Errorf("%w: tool %q: description must stay a string", ErrBadOverride, out[i].Name)
		}
		for k, dst := range map[string]*json.RawMessage{"input_schema": &out[i].InputSchema, "output_schema": &out[i].OutputSchema} {
			v, ok := m[k]
			if !ok {
				*dst = nil
				continue
			}
			b, err := json.Marshal(v)
			if err != nil {
				return "", nil, fmt.Errorf("%w: tool %q: %s: %v", ErrBadOverride, out[i].Name, k, err)
			}
			*dst = b
		}
	}
	return desc, out, nil
}

// checkHostOverrides warns on hosts the spec does not reserve and reports
// overrides that, applied, would break the Universal schema or the skill's
// identity.
func (c *checker) checkHostOverrides() {
	ovs := c.s.Frontmatter.HostOverrides
	if len(ovs) == 0 {
		return
	}
	base, err := c.s.fm.plain()
	if err != nil {
		return
	}
	bm, ok := base.(map[string]any)
	if !ok {
		return
	}
	for i, o := range ovs {
		at := []string{"host_overrides", strconv.Itoa(i)}
		line := c.s.fm.line(nodeAt(c.s.fm.root, append(at, "host")))
		if !KnownHost(o.Host) {
			c.skillMD("host-unknown", line, fmt.Sprintf("host %q is not one of the spec's reserved hosts", o.Host), "use one of claude-api, claude-code, mcp, openai-responses, codex-cli")
		}
		if o.Config == nil {
			continue
		}
		cfg, _ := jsonCompatible(o.Config).(map[string]any)
		merged, err := MergeOverride(withoutKey(bm, "host_overrides"), cfg)
		line = c.s.fm.line(nodeAt(c.s.fm.root, append(at, "config")))
		if err != nil {
			c.skillMD("host-override-invalid", line, fmt.Sprintf("host %q: %v", o.Host, err), "override only fields the skill has, without renaming it or its tools")
			continue
		}
		if c.l.frontmatter == nil || !c.at(ProfileUniversal) {
			continue // the Appendix A schema binds Universal skills only
		}
		if err := c.l.frontmatter.Validate(merged); err != nil {
			for _, p := range schemaProblems(err) {
				c.skillMD("host-override-invalid", line, fmt.Sprintf("host %q: with the override applied, %s: %s", o.Host, locationString(p.path), p.msg), "make the override keep the frontmatter valid (Universal spec, Appendix A)")
			}
		}
	}
}
