package scenarios

import "encoding/json"

func mustNumber(s string) Value { return json.Number(s) }
