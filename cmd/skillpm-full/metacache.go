package main

import (
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/manager"
)

// openMetaCache returns the index's remote catalog, which lets a warm
// index resolve without a network, or nil when --no-index is given or the
// index has no location. The caller closes it to save what was learnt.
func openMetaCache(e *command.Env, noIndex bool) *index.Remote {
	if noIndex {
		return nil
	}
	p, err := command.IndexPath()
	if err != nil {
		e.Debugf("index unavailable: %v", err)
		return nil
	}
	return index.OpenRemote(p, 0)
}

var _ manager.MetaCache = (*index.Remote)(nil)
