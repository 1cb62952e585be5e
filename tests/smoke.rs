use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::lua::LuaGame;

#[test]
fn smoke() {
    let game = LuaGame::load("games/spinner".as_ref()).unwrap();
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.advance(60).unwrap();
    println!("{}", engine.game().state_json().unwrap());
    println!("{}", engine.game().state_hash().unwrap());
}
