// Package schema holds the JSON Schemas (2020-12) of every message type and HTTP body, generated
// from package proto's Go types by `make schema` and embedded so `wirecheck schema` can write them
// anywhere. They describe the shape layer; proto's validators are the authority for value rules.
package schema

import "embed"

// Files are the committed schema documents and their README.
//
//go:embed *.json README.md
var Files embed.FS
