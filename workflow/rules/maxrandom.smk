# The leaf every comparison reads from: the expected-maximum random baseline (and its
# distribution and tail probabilities) for every (n, p or label counts, t) that a study asks
# for. A study writes results/<study>/maxrandom/requests.csv; this rule answers it in
# results/<study>/maxrandom/baselines.csv (+ distributions.csv). Comparisons never recompute it.


rule maxrandom:
    input:
        code=code("evalsci.maxrandom.requests"),
        requests=maxrandom_file("{study}", "requests"),
    output:
        baselines=maxrandom_file("{study}", "baselines"),
        distributions=maxrandom_file("{study}", "distributions"),
    log:
        paths.log("{study}", "maxrandom"),
    benchmark:
        paths.benchmark("{study}", "maxrandom")
    conda:
        ENV["core"]
    params:
        function="answer_file",
    script:
        "../scripts/call.py"
