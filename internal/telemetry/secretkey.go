package telemetry

import (
	"strings"
	"unicode"
)

// secretWords are key words whose attribute values are always secret.
var secretWords = map[string]bool{
	"authorization": true, "token": true, "apikey": true, "secret": true, "secrets": true,
	"password": true, "passwd": true, "passphrase": true, "credential": true, "credentials": true,
	"cookie": true, "cookies": true, "signature": true,
}

// SecretKey reports whether an attribute or field named key carries a secret, whatever its
// value looks like. The key is split into words at '_', '-', '.', spaces and camelCase
// boundaries; it is secret when a word is one of authorization, token, apikey, secret,
// password, passwd, passphrase, credential(s), cookie(s) or signature, or when its last word is
// "key" (api_key, x-api-key, apiKey, private_key). Plural "tokens" is deliberately not secret:
// LLM usage counts such as max_tokens are logged routinely.
func SecretKey(key string) bool {
	words := splitKey(key)
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	return len(words) > 1 && words[len(words)-1] == "key"
}

// splitKey lowercases key and splits it into words.
func splitKey(key string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	prevLower := false
	for _, r := range key {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		cur.WriteRune(unicode.ToLower(r))
	}
	flush()
	return words
}
