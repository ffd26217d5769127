/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 847078 pairs (61879 matches), 14 iterations, log loss 0.0156 bits; ORG 795606 pairs (34710 matches), 16 iterations, log loss 0.0111 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -1.014,
    "tf": 0.7947,
    "population": 0.8372,
    "levels": {
      "external_id": {
        "not_shared": -1.014,
        "other_kinds": 0.000406
      },
      "last_name": {
        "different": -3.904,
        "exact": -1.348,
        "one_edit": 3.63,
        "jw_0.92": 1.58,
        "phonetic": -1.573,
        "jw_0.88": 0.6009
      },
      "first_name": {
        "exact": 3.887,
        "different": -7.261,
        "one_edit": 4.154,
        "initial": 1.058,
        "jw_0.88": -0.8873,
        "missing": -1.965
      },
      "state": {
        "different": -4.042,
        "same": 3.029
      },
      "middle": {
        "missing": 1.03,
        "different": -7.531,
        "same": 5.487
      },
      "employer": {
        "missing": -3.054,
        "different": -5.663,
        "same": 7.703
      },
      "title": {
        "missing": -0.4978,
        "different": -1.895,
        "same": 1.379
      },
      "city": {
        "missing": -3.139,
        "same": 3.163,
        "same_elsewhere": 4.26,
        "different": -5.297
      }
    },
    "cross": {
      "different": {
        "different": -2.371,
        "same": -1.533
      },
      "exact": {
        "different": -2.205,
        "same": 0.8572
      },
      "one_edit": {
        "same": 2.529,
        "different": 1.101
      },
      "jw_0.92": {
        "same": 1.129,
        "different": 0.4512
      },
      "phonetic": {
        "different": -1.124,
        "same": -0.4489
      },
      "jw_0.88": {
        "same": 0.4961,
        "different": 0.1048
      }
    },
    "tfDifferentState": 0.1978
  },
  "ORG": {
    "bias": -3.252,
    "tf": 0.6875,
    "population": 0.4654,
    "levels": {
      "external_id": {
        "not_shared": -0.1522,
        "other_kinds": -3.1
      },
      "name": {
        "different": -6.348,
        "token_set_0.6": -2.101,
        "exact": 0.3621,
        "one_edit": 6.276,
        "two_edits": 2.514,
        "token_set_1": -1.538,
        "token_set_0.8": -2.418
      },
      "legal_form": {
        "different": -8.075,
        "missing": 0.5862,
        "same": 4.237
      },
      "state": {
        "different": -3.882,
        "missing": -1.013,
        "same": 1.643
      },
      "city": {
        "missing": -3.724,
        "different": -5.833,
        "same": 2.908,
        "same_elsewhere": 3.397
      }
    },
    "cross": {
      "different": {
        "different": -2.27,
        "missing": -2.256,
        "same": -1.821
      },
      "token_set_0.6": {
        "different": -1.89,
        "same": 0.6361,
        "missing": -0.8468
      },
      "exact": {
        "same": -1.743,
        "different": 1.179,
        "missing": 0.9257
      },
      "one_edit": {
        "same": 1.898,
        "missing": 2.965,
        "different": 1.414
      },
      "two_edits": {
        "different": -0.8558,
        "missing": 0.7742,
        "same": 2.595
      },
      "token_set_1": {
        "different": -0.48,
        "missing": -1.842,
        "same": 0.7839
      },
      "token_set_0.8": {
        "different": -0.9783,
        "missing": -0.7327,
        "same": -0.7068
      }
    },
    "tfDifferentState": 0.1456
  }
};
