// Package registry packs skill folders into OCI artifacts and moves them
// between folders, OCI registries and OCI image layout folders.
//
// The artifact is the draft "Agent Skills OCI Artifacts" format (v0.1.0):
// an OCI 1.1 image manifest with artifactType ArtifactType, a small JSON
// config (MediaTypeConfig) and exactly one reproducible tar+gzip content
// layer (MediaTypeContent) rooted at the skill's name. Pack builds one,
// Client.Publish pushes it, Client.Resolve reads a manifest and config
// without downloading content, and Client.Pull (Resolve, then Extract)
// writes a skill's files into a folder. Artifacts that other tools
// published (a plain "oras push" of a folder or of files, other skill
// tools' single-layer layouts, index-wrapped manifests) are read too;
// Layout.Note says what was recognised.
//
// Every byte read from a registry or the Cache is checked against its
// digest before it is moved into place, and Unpack refuses archives that
// try to write outside their target (see UnsafeArchiveError). The
// package never prints: progress and request logs go to the callbacks in
// Options.
package registry
