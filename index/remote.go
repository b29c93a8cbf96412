package index

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Remote caches what registries said about published skills: the
// versions of each repository, the manifest digest of each version tag,
// and per manifest digest the release metadata read from its config blob.
// With it warm, resolution needs no network.
//
// Reads go to the index opened read-only (a shared lock); writes are
// buffered and saved in one short transaction by Close. Every failure
// (a missing, locked or corrupt index) makes Remote an empty cache: it
// never fails a command.
type Remote struct {
	path    string
	timeout time.Duration
	db      *bolt.DB

	mu       sync.Mutex
	versions map[string]repoEntry
	tags     map[string]map[string]string // repo -> tag -> digest
	releases map[string][]byte            // digest -> release JSON
}

// repoEntry is a remote/repos value.
type repoEntry struct {
	Versions []string  `json:"versions"`
	ListedAt time.Time `json:"listedAt"`
}

// OpenRemote opens the remote cache of the index at path. A zero timeout
// means DefaultTimeout.
func OpenRemote(path string, timeout time.Duration) *Remote {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	r := &Remote{path: path, timeout: timeout, versions: map[string]repoEntry{}, tags: map[string]map[string]string{}, releases: map[string][]byte{}}
	if db, err := openDB(path, true, timeout); err == nil {
		if view(db, checkFormat) == nil {
			r.db = db
		} else {
			db.Close()
		}
	}
	return r
}

func (r *Remote) get(bucket []byte, sub string, key string) []byte {
	if r.db == nil {
		return nil
	}
	var out []byte
	view(r.db, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b != nil && sub != "" {
			b = b.Bucket([]byte(sub))
		}
		if b != nil {
			if v := b.Get([]byte(key)); v != nil {
				out = append([]byte(nil), v...)
			}
		}
		return nil
	})
	return out
}

// Versions returns the versions last listed for repo.
func (r *Remote) Versions(repo string) ([]string, bool) {
	r.mu.Lock()
	e, ok := r.versions[repo]
	r.mu.Unlock()
	if ok {
		return e.Versions, true
	}
	if json.Unmarshal(r.get(BucketRemoteRepos, "", repo), &e) != nil {
		return nil, false
	}
	return e.Versions, true
}

// PutVersions records the versions listed for repo.
func (r *Remote) PutVersions(repo string, versions []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.versions[repo] = repoEntry{Versions: versions, ListedAt: time.Now().UTC()}
}

// Release returns the release recorded for repo at tag.
func (r *Remote) Release(repo, tag string) ([]byte, bool) {
	r.mu.Lock()
	d := r.tags[repo][tag]
	data, ok := r.releases[d]
	r.mu.Unlock()
	if ok {
		return data, true
	}
	if d == "" {
		d = string(r.get(BucketRemoteTags, repo, tag))
	}
	if d == "" {
		return nil, false
	}
	data = r.get(BucketRemoteConfs, "", d)
	return data, data != nil
}

// ReleaseByDigest returns the release recorded for a manifest digest.
func (r *Remote) ReleaseByDigest(digest string) ([]byte, bool) {
	r.mu.Lock()
	data, ok := r.releases[digest]
	r.mu.Unlock()
	if ok {
		return data, true
	}
	data = r.get(BucketRemoteConfs, "", digest)
	return data, data != nil
}

// PutRelease records that tag of repo is the manifest digest, described
// by data.
func (r *Remote) PutRelease(repo, tag, digest string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tags[repo] == nil {
		r.tags[repo] = map[string]string{}
	}
	r.tags[repo][tag] = digest
	r.releases[digest] = data
}

// Close saves what was learnt in one transaction. It reports why nothing
// could be saved, for --debug; callers may ignore it.
func (r *Remote) Close() error {
	if r.db != nil {
		r.db.Close()
		r.db = nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.versions) == 0 && len(r.releases) == 0 {
		return nil
	}
	db, err := openDB(r.path, false, r.timeout)
	if errors.Is(err, ErrCorrupt) { // only a cache: start it again
		if err = os.Remove(r.path); err == nil {
			db, err = openDB(r.path, false, r.timeout)
		}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return update(db, func(tx *bolt.Tx) error {
		if err := prepare(tx); err != nil {
			return err
		}
		repos, err := tx.CreateBucketIfNotExists(BucketRemoteRepos)
		if err != nil {
			return err
		}
		for repo, e := range r.versions {
			v, _ := json.Marshal(e)
			if err := repos.Put([]byte(repo), v); err != nil {
				return err
			}
		}
		tags, err := tx.CreateBucketIfNotExists(BucketRemoteTags)
		if err != nil {
			return err
		}
		for repo, m := range r.tags {
			b, err := tags.CreateBucketIfNotExists([]byte(repo))
			if err != nil {
				return err
			}
			for tag, d := range m {
				if err := b.Put([]byte(tag), []byte(d)); err != nil {
					return err
				}
			}
		}
		confs, err := tx.CreateBucketIfNotExists(BucketRemoteConfs)
		if err != nil {
			return err
		}
		for d, data := range r.releases {
			if err := confs.Put([]byte(d), data); err != nil {
				return err
			}
		}
		return nil
	})
}
