#!/bin/sh
# Writes the .dist-info of the toolscored Python package into SITE (a
# directory on sys.path holding toolscored/): METADATA, the pytest11 entry
# point that makes pytest load the plugin, top_level.txt, INSTALLER and
# RECORD (the files of the package, for tools that list or remove it).
# Usage: mkdistinfo.sh SITE VERSION
set -eu
site=$1
version=$2
dist=$site/toolscored-$version.dist-info
# one .dist-info only: another version's would register the plugin twice
for old in "$site"/toolscored-*.dist-info; do
	[ "$old" = "$dist" ] || rm -rf "$old"
done
mkdir -p "$dist"
cat >"$dist/METADATA" <<META
Metadata-Version: 2.1
Name: toolscored
Version: $version
Summary: Snapshot testing for AI-agent tool calls: the pytest plugin and client of toolscored
License: see the toolscored source
Requires-Python: >=3.9
Classifier: Framework :: Pytest
META
printf '[pytest11]\ntoolscored = toolscored._plugin_entry\n' >"$dist/entry_points.txt"
printf 'toolscored\n' >"$dist/top_level.txt"
printf 'make\n' >"$dist/INSTALLER"
{
	for f in "$site"/toolscored/*; do
		[ -f "$f" ] && printf 'toolscored/%s,,\n' "$(basename "$f")"
	done
	for f in METADATA entry_points.txt top_level.txt INSTALLER RECORD; do
		printf 'toolscored-%s.dist-info/%s,,\n' "$version" "$f"
	done
} >"$dist/RECORD"
