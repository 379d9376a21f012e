package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/principal"
)

func tokenCmd(args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sub := fs.String("sub", "", "user the token speaks for (the JWT sub, i.e. the principal)")
	ttl := fs.Duration("ttl", principal.DefaultDevTTL, "how long the token is valid")
	cfgPath := fs.String("config", "", "the config file serve uses (for auth.issuer and auth.audience)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard token --sub NAME [--ttl 24h] [--config FILE]\n\nPrints, alone on stdout, a dev-mode bearer token for NAME, signed with the same\nsecret as `switchboard serve` (the variable auth.hs256_secret_env names, else\nSWITCHBOARD_DEV_SECRET, else the one serve stored).")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("token takes no arguments, got %q: name the user with --sub", fs.Args())
	}
	// Trimmed as the chat page's dev sign-in trims it: " alice" would be another user.
	name := strings.TrimSpace(*sub)
	if name == "" {
		return usageError("token needs --sub NAME")
	}
	if *ttl <= 0 {
		return usageError("token needs a positive --ttl, such as 24h")
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return err
	}
	// The SWITCHBOARD_* overrides serve applies (auth mode, issuer, audience are what a token
	// must match); not the secrets: minting needs no model key.
	if err := cfg.ApplyOverrides(lookup); err != nil {
		return err
	}
	if cfg.Auth.Mode == "jwt" {
		return usageError("token mints dev-mode tokens only; with auth mode jwt your identity provider issues them")
	}
	secret, err := tokenSecret(cfg.Auth.HS256SecretEnv, lookup)
	if err != nil {
		return err
	}
	signer, err := principal.NewDevSigner(secret, cfg.Auth.Issuer, cfg.Auth.Audience)
	if err != nil {
		return err
	}
	tok, err := signer.Mint(name, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// tokenSecret is the secret a dev server signs with: the variable auth.hs256_secret_env names,
// when the config names one and it is set, as serve prefers it; otherwise the dev secret.
func tokenSecret(secretEnv string, lookup env) ([]byte, error) {
	if secretEnv != "" {
		if v, ok := lookup(secretEnv); ok && v != "" {
			if len(v) < 32 {
				return nil, fmt.Errorf("%s (auth.hs256_secret_env) must be at least 32 bytes long", secretEnv)
			}
			return []byte(v), nil
		}
	}
	return devSecret(lookup, false)
}
