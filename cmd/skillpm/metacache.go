package main

import "github.com/skillpm/skillpm/manager"

// openMetaCache returns the index-backed release cache, or nil when the
// index cannot be used (resolution then simply asks the registry).
func openMetaCache(e *env) manager.MetaCache {
	return nil
}
