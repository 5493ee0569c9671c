# seed.awk turns ../../../shared/spec/rules.md into the first rules.tsv (run once; rules.tsv is
# the source of truth since, with its corrections). Columns: id, side, section, unobservable, rule.
# side is a first guess from the wording: "Core…"/"Core:" binds Core, "Daemon:"/"Runtime:"/"The
# Runtime…" binds the Runtime, the PJ family is Core's by its title; everything else binds both and is
# corrected by hand.
BEGIN { FS = " \\| "; OFS = "\t" }
/^\| [A-Z][A-Z]-[0-9]+ / {
	id = $1; sub(/^\| /, "", id)
	sec = $2
	rule = $3; sub(/ \|$/, "", rule)
	side = "both"
	if (rule ~ /^Core[: ]/ || id ~ /^PJ-/) side = "core"
	else if (rule ~ /^(Daemon|Runtime):/ || rule ~ /^(The|A) (Runtime|daemon) /) side = "runtime"
	print id, side, sec, "", rule
}
