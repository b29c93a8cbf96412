package verify

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
)

// BuildType is the SLSA build type of a skillpm publish.
const BuildType = "https://skillpm.dev/publish/v1"

// Provenance is what skillpm records about how a skill was published.
// It becomes an SLSA provenance v1 predicate.
type Provenance struct {
	// SourceRepository is the source's URI ("https://github.com/acme/skills"),
	// "" when the skill was not published from a git checkout.
	SourceRepository string `json:"sourceRepository,omitempty"`
	// Revision is the git commit.
	Revision string `json:"revision,omitempty"`
	// Builder identifies what ran the publish (a CI workflow URL, or
	// "skillpm/VERSION" on a workstation).
	Builder  string        `json:"builder"`
	Name     string        `json:"name"`
	Version  string        `json:"version"`
	Manifest digest.Digest `json:"manifest"`
	Content  digest.Digest `json:"content"`
	// BuildTime is when the publish ran.
	BuildTime time.Time `json:"buildTime"`
}

type slsaPredicate struct {
	BuildDefinition struct {
		BuildType            string              `json:"buildType"`
		ExternalParameters   slsaExternal        `json:"externalParameters"`
		ResolvedDependencies []slsaResourceDescr `json:"resolvedDependencies,omitempty"`
	} `json:"buildDefinition"`
	RunDetails struct {
		Builder struct {
			ID string `json:"id"`
		} `json:"builder"`
		Metadata struct {
			StartedOn  string `json:"startedOn,omitempty"`
			FinishedOn string `json:"finishedOn,omitempty"`
		} `json:"metadata"`
		Byproducts []slsaResourceDescr `json:"byproducts,omitempty"`
	} `json:"runDetails"`
}

type slsaExternal struct {
	Source *slsaResourceDescr `json:"source,omitempty"`
	Skill  struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"skill"`
	// Workflow is what GitHub's generators write; read, never written.
	Workflow *struct {
		Repository string `json:"repository"`
	} `json:"workflow,omitempty"`
}

type slsaResourceDescr struct {
	Name      string            `json:"name,omitempty"`
	URI       string            `json:"uri,omitempty"`
	Digest    map[string]string `json:"digest,omitempty"`
	MediaType string            `json:"mediaType,omitempty"`
}

// Predicate returns p as an SLSA provenance v1 predicate.
func (p *Provenance) Predicate() any {
	var s slsaPredicate
	s.BuildDefinition.BuildType = BuildType
	s.BuildDefinition.ExternalParameters.Skill.Name = p.Name
	s.BuildDefinition.ExternalParameters.Skill.Version = p.Version
	if p.SourceRepository != "" {
		src := slsaResourceDescr{URI: "git+" + p.SourceRepository}
		if p.Revision != "" {
			src.Digest = map[string]string{"gitCommit": p.Revision}
		}
		s.BuildDefinition.ExternalParameters.Source = &src
		s.BuildDefinition.ResolvedDependencies = []slsaResourceDescr{src}
	}
	s.RunDetails.Builder.ID = p.Builder
	if !p.BuildTime.IsZero() {
		t := p.BuildTime.UTC().Format(time.RFC3339)
		s.RunDetails.Metadata.StartedOn, s.RunDetails.Metadata.FinishedOn = t, t
	}
	if p.Content != "" {
		s.RunDetails.Byproducts = []slsaResourceDescr{{Name: "content", Digest: map[string]string{p.Content.Algorithm().String(): p.Content.Encoded()}}}
	}
	return s
}

// parseProvenance reads the parts of an SLSA v1 predicate a policy
// checks. The source repository is the first of: skillpm's
// externalParameters.source, GitHub's externalParameters.workflow
// repository, the first git resolved dependency.
func parseProvenance(raw json.RawMessage) (*Provenance, error) {
	var s slsaPredicate
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	p := &Provenance{Builder: s.RunDetails.Builder.ID}
	if p.Builder == "" {
		return nil, errors.New("no runDetails.builder.id")
	}
	ext := s.BuildDefinition.ExternalParameters
	p.Name, p.Version = ext.Skill.Name, ext.Skill.Version
	switch {
	case ext.Source != nil:
		p.SourceRepository, p.Revision = gitURI(ext.Source.URI), ext.Source.Digest["gitCommit"]
	case ext.Workflow != nil:
		p.SourceRepository = ext.Workflow.Repository
	default:
		for _, d := range s.BuildDefinition.ResolvedDependencies {
			if strings.HasPrefix(d.URI, "git+") {
				p.SourceRepository, p.Revision = gitURI(d.URI), d.Digest["gitCommit"]
				break
			}
		}
	}
	if t, err := time.Parse(time.RFC3339, s.RunDetails.Metadata.StartedOn); err == nil {
		p.BuildTime = t
	}
	for _, b := range s.RunDetails.Byproducts {
		if b.Name == "content" {
			for alg, hex := range b.Digest {
				p.Content = digest.NewDigestFromEncoded(digest.Algorithm(alg), hex)
			}
		}
	}
	return p, nil
}

// gitURI turns "git+https://host/repo@ref" into "https://host/repo".
func gitURI(s string) string {
	s = strings.TrimPrefix(s, "git+")
	if i := strings.LastIndex(s, "@"); i > strings.Index(s, "://")+2 && !strings.Contains(s[i:], "/") {
		s = s[:i]
	}
	return s
}
