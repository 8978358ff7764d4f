use kubegen::testing::TestEnv;

#[kubegen::test(in_memroy)]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}
