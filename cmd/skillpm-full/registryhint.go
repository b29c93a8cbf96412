package main

import (
	"errors"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
)

// registryHint is the recommendation under a registry error.
func registryHint(err error) string {
	var (
		te *httpbound.TimeoutError
		le *registry.ListError
	)
	switch {
	case errors.As(err, &te):
		return "the registry is unreachable or too slow; for a slow network, raise --connect-timeout, --response-timeout or --stall-timeout (timeouts: in config.yaml)"
	case errors.As(err, &le):
		return "the registry's listing does not end; report it to its operator (limits.max_pages and limits.max_list_items in config.yaml bound listings)"
	case errors.Is(err, registry.ErrInsecure):
		return "nothing was sent there: credentials go over plain HTTP only to this machine or to hosts plain_http in config.yaml names, and a registry may not send skillpm (or its token requests) to plain http, this machine or an internal address; if the registry is yours, fix where it points"
	case errors.Is(err, registry.ErrUnauthorized):
		return "log in with 'skillpm login REGISTRY' (credentials come from docker's config and credential helpers)"
	case errors.Is(err, registry.ErrNetwork):
		return "check the registry address and that it is up; use --plain-http for a registry without TLS"
	case errors.Is(err, registry.ErrTagExists):
		return "bump version in SKILL.md (or pass --version), or pass --force to move the tag"
	case errors.Is(err, registry.ErrExists):
		return "pass --force to replace it, or -o another folder"
	case errors.Is(err, registry.ErrUnsafeArchive):
		return "the artifact is broken or hostile; nothing was written. Ask its publisher to re-publish it"
	case errors.Is(err, registry.ErrIntegrity):
		return "the content does not match its digest or is over a size limit; nothing was written"
	case errors.Is(err, registry.ErrNotSkill):
		return "the artifact holds no skill skillpm can read; check the reference"
	case errors.Is(err, registry.ErrNotFound):
		return "list what is published with 'skillpm versions REPOSITORY'"
	}
	return ""
}
