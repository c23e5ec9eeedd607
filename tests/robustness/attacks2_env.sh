# Sourced by the scripts that run packages of tests/robustness/attacks2/
# beside an honest copy of the SM3 example: after
#   attacks2_env NAME BUILD SOURCE
# $B is hashbench, $DIR a fresh folder (removed at exit unless HB_KEEP is
# set), $A/<Package> the assembled packages and $A/Honest the copy; field
# FILE NAME prints a record's string field NAME as the record writes it.
attacks2_env() {
    B=$2/hashbench
    DIR=$(mktemp -d "/tmp/hb-$1.XXXXXX")
    trap '[ -n "${HB_KEEP:-}" ] || rm -rf "$DIR"' EXIT
    A=$DIR/packages
    mkdir -p "$A"
    sh "$3/tests/robustness/attacks2.sh" --assemble "$A" "$3"
    cp -r "$3/examples/SM3" "$A/Honest"
}

field() {
    sed -n "s/^ *\"$2\": \"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1
}
