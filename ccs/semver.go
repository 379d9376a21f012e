package ccs

import (
	"errors"
	"strconv"
	"strings"
)

var errBadVersion = errors.New("not semver")

// parseMajor returns the major number of a semantic version "MAJOR.MINOR.PATCH", optionally
// followed by "-prerelease" and "+build" (semver 2.0.0). A leading "v", missing parts and
// numbers with leading zeros are rejected.
func parseMajor(v string) (int, error) {
	core, build, hasBuild := strings.Cut(v, "+")
	if hasBuild && !validIdents(build) {
		return 0, errBadVersion
	}
	core, pre, hasPre := strings.Cut(core, "-")
	if hasPre && !validIdents(pre) {
		return 0, errBadVersion
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return 0, errBadVersion
	}
	var major int
	for i, p := range parts {
		if p == "" || len(p) > 9 || (len(p) > 1 && p[0] == '0') {
			return 0, errBadVersion
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0, errBadVersion
		}
		if i == 0 {
			major = n
		}
	}
	return major, nil
}

// validIdents checks a dot-separated list of non-empty [0-9A-Za-z-] identifiers.
func validIdents(s string) bool {
	for id := range strings.SplitSeq(s, ".") {
		if id == "" {
			return false
		}
		for _, c := range id {
			if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-') {
				return false
			}
		}
	}
	return true
}
