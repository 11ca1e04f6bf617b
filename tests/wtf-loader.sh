# Sourced: WTF's own reader, the npm package tracing-framework, for the
# tests that load traces with it (wtf-consumer.sh, split-wtf.sh).
# wtf_loader: installs it into $TMP/npm, writes load.js (node load.js
# "$M" FILE prints the reader's events, one line each: zone, time in us,
# name, arguments as JSON) and sets M.  Returns 0, 1 when node or npm is
# missing, 2 when the install failed (offline?).
wtf_loader() {
	command -v node >/dev/null && command -v npm >/dev/null || return 1
	npm install --prefix "$TMP/npm" --ignore-scripts --omit=optional \
	    --no-audit --no-fund tracing-framework@2015.7.15-1 >npm.log 2>&1 ||
	    return 2
	M=$TMP/npm/node_modules/tracing-framework
	# The reader needs a Uint8Array that owns its whole buffer
	# (reference 7).
	cat > load.js <<'EOJ'
var wtf = require(process.argv[2]);
var b = require('fs').readFileSync(process.argv[3]);
var u8 = new Uint8Array(b.length);
u8.set(b);
wtf.db.load(u8, function(db) {
  if (db instanceof Error) {
    console.log('ERROR ' + db);
    process.exit(1);
  }
  db.getZones().forEach(function(zone) {
    for (var it = zone.getEventList().begin(); !it.done(); it.next()) {
      var a = it.getArguments();
      console.log(zone.getName() + '\t' + Math.round(it.getTime() * 1000) +
          '\t' + it.getName() + '\t' + (a ? JSON.stringify(a) : ''));
    }
  });
});
EOJ
}
