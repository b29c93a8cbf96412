package ociref

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

// The rules below are oras-go's (registry.Reference.Validate and
// ValidateReferenceAsTag) and go-digest's (Digest.Validate, with sha256,
// sha384 and sha512 available), with their error texts; registry's tests
// check that both sides agree.

// repositoryRE is the repository name of the distribution spec (docker's
// stricter form, as oras-go checks it client-side).
var repositoryRE = lazyre.New(`^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*$`)

// tagRE is the tag of the OCI distribution spec.
var tagRE = lazyre.New(`^[\w][\w.-]{0,127}$`)

// digestRE is go-digest's DigestRegexpAnchored.
var digestRE = lazyre.New(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`)

// hexRE is the encoded part of a digest of a known algorithm.
var hexRE = lazyre.New(`^[a-f0-9]+$`)

// digestHexLen is the hex length of each digest algorithm accepted.
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// The errors of go-digest, with its texts.
var (
	errDigestFormat      = errors.New("invalid checksum digest format")
	errDigestLength      = errors.New("invalid checksum digest length")
	errDigestUnsupported = errors.New("unsupported digest algorithm")
)

// validRepo checks a registry host and a repository path.
func validRepo(host, repo string) error {
	if u, err := url.ParseRequestURI("dummy://" + host); err != nil || u.Host == "" || u.Host != host {
		return fmt.Errorf("%w: invalid registry %q", ErrInvalidReference, host)
	}
	if !repositoryRE().MatchString(repo) {
		return fmt.Errorf("%w: invalid repository %q", ErrInvalidReference, repo)
	}
	return nil
}

// validDigest checks ALGORITHM:HEX.
func validDigest(d string) error {
	i := strings.Index(d, ":")
	if i <= 0 || i+1 == len(d) {
		return errDigestFormat
	}
	n, ok := digestHexLen[d[:i]]
	if !ok {
		if !digestRE().MatchString(d) {
			return errDigestFormat
		}
		return errDigestUnsupported
	}
	if enc := d[i+1:]; len(enc) != n {
		return errDigestLength
	} else if !hexRE().MatchString(enc) {
		return errDigestFormat
	}
	return nil
}
