package principal

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// jwk is the subset of RFC 7517/7518/8037 members this package reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseJWKS decodes a JWK Set into verification keys by kid. Keys this package cannot use
// (other curves, encryption keys, no kid, an alg other than the one pinned for the key type) are
// skipped rather than failing the set, because issuers publish keys for other consumers too. A
// set with no usable key at all is an error, so that a broken document never replaces good keys.
func parseJWKS(data []byte) (map[string]publicKey, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode JWKS: %w", err)
	}
	keys := make(map[string]publicKey, len(doc.Keys))
	for _, k := range doc.Keys {
		if k.Kid == "" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		if _, dup := keys[k.Kid]; dup {
			continue // first one wins: a kid must name one key
		}
		pk, err := k.publicKey()
		if err != nil {
			continue
		}
		if k.Alg != "" && k.Alg != pk.alg {
			continue
		}
		keys[k.Kid] = pk
	}
	if len(keys) == 0 {
		return nil, errors.New("JWKS holds no usable RS256, ES256 or EdDSA signing key")
	}
	return keys, nil
}

// publicKey converts one JWK to a pinned key.
func (k jwk) publicKey() (publicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64Field(k.N)
		if err != nil {
			return publicKey{}, err
		}
		e, err := b64Field(k.E)
		if err != nil {
			return publicKey{}, err
		}
		// Exponents are small in practice (65537); anything past 32 bits is not a real key.
		if len(e) == 0 || len(e) > 4 {
			return publicKey{}, errors.New("bad RSA exponent")
		}
		exp := int(new(big.Int).SetBytes(e).Int64())
		if exp < 3 || exp%2 == 0 {
			return publicKey{}, errors.New("bad RSA exponent")
		}
		return pinPublicKey(&rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp})
	case "EC":
		if k.Crv != "P-256" {
			return publicKey{}, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		x, err := b64Field(k.X)
		if err != nil {
			return publicKey{}, err
		}
		y, err := b64Field(k.Y)
		if err != nil {
			return publicKey{}, err
		}
		if len(x) != 32 || len(y) != 32 {
			return publicKey{}, errors.New("bad P-256 coordinate length")
		}
		// ParseUncompressedPublicKey also checks that the point is on the curve.
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return publicKey{}, err
		}
		return pinPublicKey(pub)
	case "OKP":
		if k.Crv != "Ed25519" {
			return publicKey{}, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		x, err := b64Field(k.X)
		if err != nil {
			return publicKey{}, err
		}
		return pinPublicKey(ed25519.PublicKey(x))
	default:
		return publicKey{}, fmt.Errorf("unsupported kty %q", k.Kty)
	}
}

// b64Field decodes a base64url JWK member; padding is tolerated because some issuers emit it.
func b64Field(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("missing key member")
	}
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
