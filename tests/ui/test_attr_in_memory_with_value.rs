use kubegen::testing::TestEnv;

#[kubegen::test(in_memory = true)]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}
