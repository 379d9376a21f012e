// Package lang is what the offline model's stages share about English: reading text into
// words with their byte spans (ScanWords), the light stemmer and content terms the index is
// built on (Stem, Terms), typo tolerance (EditDistance, TypoBudget), the shapes of codes such
// as flight numbers (ShapeTerms), the words that bound a price (PriceLimitBefore), and the
// word lists and thresholds of language.txt, one embedded, commented file read by List,
// PhraseList, Frames and Number.
//
// Everything here is immutable after package initialisation and safe for any number of
// goroutines.
package lang
