#!/usr/bin/env bats
# --draft: JPEG shrink-on-load before a --resize, against Pillow's draft
# then resize (tests/cli/oracle_draft.py); and its refusals.

load helper

@test "--draft equals Pillow's draft then resize, at every scale and filter" {
	run python3 "$ROOT/tests/cli/oracle_draft.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--draft with a first stage other than --resize is a usage error; nothing is written" {
	run "$GPUFILT" "$SAMPLES/rocket.jpg" --draft --mean 3 --resize 50% -o out.png
	[ "$status" -eq 64 ]
	[[ "$output" == *"--draft"*"--resize"* ]]
	[ ! -e out.png ]
	run "$GPUFILT" "$SAMPLES/rocket.jpg" --draft -o out.png
	[ "$status" -eq 64 ]
	[ ! -e out.png ]
}

@test "--draft leaves other formats whole: a PNG's bytes are those of a plain resize" {
	"$GPUFILT" "$SAMPLES/coffee.png" --draft --resize 64x64 -o a.png -q
	"$GPUFILT" "$SAMPLES/coffee.png" --resize 64x64 -o b.png -q
	cmp a.png b.png
}

@test "--draft shrinks the decode: a 2400x1600 JPEG decodes at 300x200 for a 100x67 result" {
	python3 -c "
import sys
from PIL import Image
import numpy as np
rng = np.random.default_rng(int(sys.argv[1]))
Image.fromarray(rng.integers(0, 256, (1600, 2400, 3), dtype=np.uint8)).save('big.jpg', quality=90)" "$RANDOM"
	run "$GPUFILT" big.jpg --draft --resize 100x100 -o t.png --timings json
	[ "$status" -eq 0 ]
	# the JPEG is 2400x1600; decoded at 1/8 it is 300x200, which the resize takes to 100x67
	python3 -c "
from PIL import Image
assert Image.open('t.png').size == (100, 67), Image.open('t.png').size"
	[[ "$output" == *'"width":300,"height":200,'*'"out_width":100,"out_height":67'* ]]
	# without --draft the whole image decodes
	run "$GPUFILT" big.jpg --resize 100x100 -o t.png --timings json
	[[ "$output" == *'"width":2400,"height":1600,'* ]]
}
