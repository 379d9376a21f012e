package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-ai/switchboard/principal"
)

// The dev secret is shared by `serve` and `token`: SWITCHBOARD_DEV_SECRET when set, otherwise
// a random secret that serve keeps in the user's cache folder (mode 0600) so that token can
// mint for the server that is running.
const devSecretEnv = "SWITCHBOARD_DEV_SECRET"

func devSecretPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "switchboard", "dev-secret"), nil
}

// devSecret returns the dev secret; create makes and stores a random one when none exists.
func devSecret(lookup env, create bool) ([]byte, error) {
	if v, ok := lookup(devSecretEnv); ok && v != "" {
		if len(v) < 32 {
			return nil, fmt.Errorf("%s must be at least 32 bytes long", devSecretEnv)
		}
		return []byte(v), nil
	}
	path, err := devSecretPath()
	if err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(path); err == nil {
		secret, err := base64.RawStdEncoding.DecodeString(strings.TrimSpace(string(data)))
		if err == nil && len(secret) >= 32 {
			return secret, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if !create {
		return nil, fmt.Errorf("no dev secret: set %s, or start `switchboard serve` once in dev mode", devSecretEnv)
	}
	secret := principal.RandomSecret()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(base64.RawStdEncoding.EncodeToString(secret)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return secret, nil
}

// randomDevSecret is a throwaway secret for a process that mints no tokens for anyone else.
func randomDevSecret() []byte { return principal.RandomSecret() }
