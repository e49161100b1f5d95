package arch

import "strings"

// Sentences counts the words and sentences of text. A sentence ends with
// a word ending in '.', '?' or '!', closing quotes and brackets aside.
func Sentences(text string) (words, sentences int) {
	n := 0
	for _, w := range strings.Fields(text) {
		n++
		w = strings.TrimRight(w, ")]\"'`")
		if w != "" && strings.ContainsAny(w[len(w)-1:], ".?!") {
			words += n
			sentences++
			n = 0
		}
	}
	if n > 0 {
		words += n
		sentences++
	}
	return words, sentences
}
