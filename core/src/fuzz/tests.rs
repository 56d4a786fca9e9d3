use super::*;

#[test]
fn every_target_runs_a_few_inputs_without_a_crash_and_reaches_both_verdicts() {
    let corpus = Corpus::new();
    assert!(
        corpus.traces.len() >= 4,
        "most generated scenarios are valid"
    );
    for target in Target::ALL {
        let mut crashes = Vec::new();
        let c = fuzz(
            target,
            1,
            &corpus,
            |n| n < 60,
            |x| crashes.push(x.file_text()),
        );
        assert_eq!(crashes, Vec::<String>::new(), "{target}");
        assert_eq!(c.tried, 60);
        assert!(c.accepted > 0 && c.rejected > 0, "{target}: {c:?}");
    }
}

#[test]
fn an_input_is_the_same_from_its_seed_alone() {
    let corpus = Corpus::new();
    for target in Target::ALL {
        let a = generate(target, input_seed(40, 2), &corpus).text;
        let b = generate(target, input_seed(42, 0), &corpus).text;
        assert_eq!(a, b, "{target}");
    }
}
