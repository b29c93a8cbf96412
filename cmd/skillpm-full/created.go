package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// createdTime is org.opencontainers.image.created for pack and publish:
// SOURCE_DATE_EPOCH when set, else the zero time (registry.DefaultCreated).
func createdTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}
