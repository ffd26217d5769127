/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 826117 pairs (61984 matches), 14 iterations, log loss 0.0198 bits; ORG 765395 pairs (34998 matches), 16 iterations, log loss 0.0122 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -1.292,
    "tf": 0.8047,
    "population": 0.8194,
    "levels": {
      "external_id": {
        "not_shared": -1.293,
        "other_kinds": 0.0004674
      },
      "last_name": {
        "different": -3.938,
        "exact": -1.342,
        "one_edit": 3.628,
        "jw_0.92": 1.509,
        "phonetic": -1.545,
        "jw_0.88": 0.397
      },
      "first_name": {
        "exact": 3.977,
        "different": -7.262,
        "one_edit": 4.153,
        "initial": 1.017,
        "jw_0.88": -0.8742,
        "missing": -2.303
      },
      "state": {
        "different": -3.846,
        "same": 2.554
      },
      "middle": {
        "missing": 0.9685,
        "different": -7.705,
        "same": 5.444
      },
      "employer": {
        "missing": -3.1,
        "different": -5.784,
        "same": 7.592
      },
      "title": {
        "missing": -0.5667,
        "different": -1.97,
        "same": 1.244
      },
      "city": {
        "missing": -1.782,
        "same": 4.463,
        "different": -3.973
      }
    },
    "cross": {
      "different": {
        "different": -2.363,
        "same": -1.575
      },
      "exact": {
        "different": -1.964,
        "same": 0.6214
      },
      "one_edit": {
        "same": 2.466,
        "different": 1.162
      },
      "jw_0.92": {
        "same": 1.129,
        "different": 0.38
      },
      "phonetic": {
        "different": -0.9394,
        "same": -0.6059
      },
      "jw_0.88": {
        "same": 0.5184,
        "different": -0.1214
      }
    },
    "tfDifferentState": 0.1757
  },
  "ORG": {
    "bias": -3.575,
    "tf": 0.6762,
    "population": 0.4314,
    "levels": {
      "external_id": {
        "not_shared": -0.3228,
        "other_kinds": -3.252
      },
      "name": {
        "different": -6.416,
        "token_set_0.6": -2.138,
        "exact": 0.4255,
        "one_edit": 6.215,
        "two_edits": 2.435,
        "token_set_1": -1.671,
        "token_set_0.8": -2.426
      },
      "legal_form": {
        "different": -8.187,
        "missing": 0.5278,
        "same": 4.084
      },
      "state": {
        "different": -3.596,
        "missing": -1.306,
        "same": 1.327
      },
      "city": {
        "missing": -2.649,
        "different": -4.778,
        "same": 3.852
      }
    },
    "cross": {
      "different": {
        "different": -2.327,
        "missing": -2.262,
        "same": -1.827
      },
      "token_set_0.6": {
        "different": -1.862,
        "same": 0.5856,
        "missing": -0.8612
      },
      "exact": {
        "same": -1.822,
        "different": 1.467,
        "missing": 0.7805
      },
      "one_edit": {
        "same": 1.749,
        "missing": 2.868,
        "different": 1.598
      },
      "two_edits": {
        "different": -0.8435,
        "missing": 0.7431,
        "same": 2.536
      },
      "token_set_1": {
        "different": -0.7125,
        "missing": -1.814,
        "same": 0.8554
      },
      "token_set_0.8": {
        "different": -0.915,
        "missing": -0.7605,
        "same": -0.7504
      }
    },
    "tfDifferentState": 0.1204
  }
};
