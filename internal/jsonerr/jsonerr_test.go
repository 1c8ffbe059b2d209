package jsonerr

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"
)

// Issue 10 item 8: a value of the wrong type is named in JSON's words,
// with its field, never with a Go type; the original error stays in the
// chain.
func TestNewcomer8_NoGoTypeNames(t *testing.T) {
	var into struct {
		Name  string            `json:"name"`
		Count int               `json:"count"`
		Tags  []string          `json:"tags"`
		Inner struct{ On bool } `json:"inner"`
		Args  map[string]string `json:"args"`
		Ratio float64           `json:"ratio"`
	}
	goType := regexp.MustCompile(`Go |struct|map\[|\[\]|int|float|bool`)
	for _, tc := range []struct{ in, want string }{
		{`[1]`, "got an array, want an object"},
		{`{"name": 3}`, `field "name": got a number, want a string`},
		{`{"count": "x"}`, `field "count": got a string, want a whole number`},
		{`{"tags": {}}`, `field "tags": got an object, want an array`},
		{`{"inner": {"On": "yes"}}`, `field "inner.On": got a string, want true or false`},
		{`{"args": {"a": 1}}`, `field "args": got a number, want a string`},
		{`{"ratio": true}`, `field "ratio": got true or false, want a number`},
	} {
		err := Plain(json.Unmarshal([]byte(tc.in), &into))
		var te *json.UnmarshalTypeError
		if err == nil || err.Error() != tc.want || goType.MatchString(err.Error()) || !errors.As(err, &te) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	syntax := json.Unmarshal([]byte(`{`), &into)
	if Plain(syntax) != syntax || Plain(nil) != nil {
		t.Error("other errors are not returned as they are")
	}
}
