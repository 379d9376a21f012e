package principal

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// Algorithm names as they appear in a JWT header.
const (
	algHS256 = "HS256"
	algRS256 = "RS256"
	algES256 = "ES256"
	algEdDSA = "EdDSA"
)

// minRSABits is the smallest RSA modulus accepted, from a PEM or a JWKS: smaller keys are
// factorable in practice (NIST SP 800-131A).
const minRSABits = 2048

// minSecretLen is the smallest HS256 secret accepted: RFC 7518 §3.2 requires a key at least as
// long as the hash output.
const minSecretLen = 32

// publicKey is a verification key together with the only algorithm it may verify. Binding the
// algorithm to the key, not to the token header, is what defeats algorithm confusion.
type publicKey struct {
	alg string
	key any // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey, as golang-jwt expects
}

// parsePublicKeyPEM reads the first PEM block of data: a PKIX "PUBLIC KEY", a PKCS#1
// "RSA PUBLIC KEY" or a "CERTIFICATE", and pins its algorithm from the key type.
func parsePublicKeyPEM(data []byte) (publicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return publicKey{}, errors.New("no PEM block found")
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	default:
		// A private key here means a secret sits in a config file meant for public material.
		return publicKey{}, fmt.Errorf("PEM block %q is not a public key or certificate", block.Type)
	}
	if err != nil {
		return publicKey{}, fmt.Errorf("parse %s: %w", block.Type, err)
	}
	return pinPublicKey(key)
}

// pinPublicKey maps a parsed public key to the single algorithm allowed for it.
func pinPublicKey(key any) (publicKey, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return publicKey{}, fmt.Errorf("RSA key of %d bits, want at least %d", k.N.BitLen(), minRSABits)
		}
		return publicKey{alg: algRS256, key: k}, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return publicKey{}, fmt.Errorf("EC key on %s, only P-256 (ES256) is supported", k.Curve.Params().Name)
		}
		return publicKey{alg: algES256, key: k}, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return publicKey{}, errors.New("Ed25519 key of wrong size")
		}
		return publicKey{alg: algEdDSA, key: k}, nil
	default:
		return publicKey{}, fmt.Errorf("unsupported key type %T", key)
	}
}
