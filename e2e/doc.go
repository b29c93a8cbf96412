// Package e2e holds skillpm's end-to-end tests: testscript scripts under
// testdata/script that drive the built skillpm binary against real OCI
// registry servers (CNCF distribution v3 and Debian's docker-registry 2.8)
// started on loopback by the tests. See README.md for how to run them.
package e2e
