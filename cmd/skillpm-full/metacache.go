package main

import (
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/manager"
)

// openMetaCache returns the index's remote catalog, which lets a warm
// index resolve without a network, or nil when --no-index is given or the
// index has no location. The caller closes it to save what was learnt.
func openMetaCache(e *env, noIndex bool) *index.Remote {
	if noIndex {
		return nil
	}
	p, err := indexPath()
	if err != nil {
		e.debugf("index unavailable: %v", err)
		return nil
	}
	return index.OpenRemote(p, 0)
}

var _ manager.MetaCache = (*index.Remote)(nil)
