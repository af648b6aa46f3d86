package evaluate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/jsconfig/wire"
)

// TestServeAnswersEveryRequest: whatever vx sends, the helper answers with
// one JSON response on stdout and exit status 0; a problem is the
// response's error, never a stack trace.
func TestServeAnswersEveryRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "{", "vx-config: cannot read the request: unexpected EOF"},
		{"another protocol", `{"version": 99}`, "vx-config speaks version 2 of the protocol and vx 99: install both from one release"},
	} {
		var out, errs bytes.Buffer
		if code := Serve(strings.NewReader(tc.in), &out, &errs, nil); code != 0 {
			t.Errorf("%s: exit %d", tc.name, code)
		}
		if !strings.HasPrefix(out.String(), wire.Started) {
			t.Errorf("%s: stdout does not start with wire.Started: %q", tc.name, out.String())
		}
		var resp wire.Response
		if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
			t.Fatalf("%s: stdout is not one response: %q", tc.name, out.String())
		}
		if resp.Version != wire.Version || resp.Error == nil || resp.Error.Msg != tc.want {
			t.Errorf("%s: response %+v, want the error %q", tc.name, resp, tc.want)
		}
	}
}
