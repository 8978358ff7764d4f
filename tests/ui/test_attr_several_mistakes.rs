use kubegen::testing::TestEnv;

#[kubegen::test(on_cluster, setup)]
fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}
