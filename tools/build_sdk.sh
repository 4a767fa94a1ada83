#!/bin/sh
# Builds Discord's Embedded App SDK (MIT) into one script the Activity's page loads from our own origin
# (docs/ACTIVITY.md): bot/edge/web/static/embedded-app-sdk-<version>.js, with its licence beside it.
# The built file is committed, so running the bot needs no Node; run this only to change the pinned version
# (then change SDK_VERSION in bot/edge/web/activity_page.py to match). Needs node and npm.
set -eu
SDK_VERSION=2.5.0
ESBUILD_VERSION=0.28.2
here=$(cd "$(dirname "$0")/.." && pwd)
static="$here/bot/edge/web/static"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm install --no-audit --no-fund --silent "@discord/embedded-app-sdk@$SDK_VERSION" "esbuild@$ESBUILD_VERSION"
echo 'export { DiscordSDK, Events } from "@discord/embedded-app-sdk";' > entry.mjs
npx esbuild entry.mjs --bundle --format=iife --global-name=DiscordEmbedded --minify --target=es2020 \
  --legal-comments=eof --outfile=sdk.js
if grep -q 'eval(' sdk.js; then
  echo "the build calls eval: the page's policy (script-src 'self') would refuse it" >&2
  exit 1
fi
{
  printf '/* @discord/embedded-app-sdk %s (MIT, see embedded-app-sdk-%s.LICENSE.md), bundled by tools/build_sdk.sh */\n' \
    "$SDK_VERSION" "$SDK_VERSION"
  cat sdk.js
} > "$static/embedded-app-sdk-$SDK_VERSION.js"
cp node_modules/@discord/embedded-app-sdk/LICENSE.md "$static/embedded-app-sdk-$SDK_VERSION.LICENSE.md"
echo "built $static/embedded-app-sdk-$SDK_VERSION.js ($(wc -c < "$static/embedded-app-sdk-$SDK_VERSION.js") bytes)"
